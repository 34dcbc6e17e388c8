import { useIsMutating } from '@tanstack/react-query'
import { type RefObject, useCallback, useEffect } from 'react'

/** Whether a dialog is on the page (open, or closing): focus is its own until it is gone. */
const dialogShown = () => document.querySelector('[role="dialog"]') !== null

/** Whether nothing has focus: the focused button went away (an action moved the order), or a dialog closed. */
function focusLost() {
  const active = document.activeElement
  return !active || active === document.body || !active.isConnected
}

/**
 * Keeps a station's scan field focused, since a keyboard scanner types into
 * whatever has focus: on load, after every action settles, and whenever focus
 * is lost (a dialog closed, with Escape too, or the focused button left the
 * page). Dialogs under the station page return no focus to their opener
 * (see StationTheme), so focus falls back here. Tab still moves freely.
 */
export function useScanFocus(field: RefObject<HTMLInputElement | null>) {
  const refocus = useCallback(() => {
    if (!dialogShown()) field.current?.focus()
  }, [field])

  const running = useIsMutating()
  useEffect(() => {
    if (running === 0) refocus()
  }, [running, refocus])

  useEffect(() => {
    const observer = new MutationObserver(() => {
      if (focusLost()) refocus()
    })
    observer.observe(document.body, { childList: true, subtree: true })
    // Back from the sheet printed in another tab: ready for the next scan.
    const back = () => {
      if (focusLost() || document.activeElement?.tagName === 'A') refocus()
    }
    // A tap on the page's background takes focus from a button to nothing.
    let timer = 0
    const left = () => {
      window.clearTimeout(timer)
      timer = window.setTimeout(() => focusLost() && refocus(), 0)
    }
    window.addEventListener('focus', back)
    document.addEventListener('focusout', left)
    return () => {
      observer.disconnect()
      window.clearTimeout(timer)
      window.removeEventListener('focus', back)
      document.removeEventListener('focusout', left)
    }
  }, [refocus])

  return refocus
}
