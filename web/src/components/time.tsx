import { VisuallyHidden } from '@mantine/core'
import { useSyncExternalStore } from 'react'
import { exactTime, fullTime, relativeTime } from '../lib/format.ts'

/** How often relative times ("3 minutes ago") move on. */
const TICK_MS = 10_000

// One clock for every time on the page: a single interval, running only while a time is shown.
let ticking: ReturnType<typeof setInterval> | undefined
let tickedAt = 0
const listeners = new Set<() => void>()

function subscribe(listener: () => void) {
  listeners.add(listener)
  if (!ticking) {
    tickedAt = Date.now()
    ticking = setInterval(() => {
      tickedAt = Date.now()
      for (const l of listeners) l()
    }, TICK_MS)
  }
  return () => {
    listeners.delete(listener)
    if (listeners.size === 0) {
      clearInterval(ticking)
      ticking = undefined
    }
  }
}

// While idle the clock reads the current second, so a page opened later does not start stale.
const snapshot = () => (ticking ? tickedAt : Math.floor(Date.now() / 1000) * 1000)

/** The current time, moving on every few seconds. */
export function useNow(): number {
  return useSyncExternalStore(subscribe, snapshot)
}

/**
 * An instant. By default relative ("3 minutes ago", kept current), with the
 * instant spelled out on hover and, after the visible text, for screen
 * readers. `exact` writes it to the second with its zone, for lists whose
 * order matters (timelines, delivery logs, audit logs); hovering adds how
 * long ago it was.
 */
export function Time({ value, exact = false }: { value: string; exact?: boolean }) {
  const now = useNow()
  const ago = relativeTime(value, now)
  const spelled = fullTime(value)
  if (exact)
    return (
      <time dateTime={value} title={`${spelled} (${ago})`}>
        {exactTime(value)}
      </time>
    )
  return (
    <time dateTime={value} title={spelled}>
      {ago}
      <VisuallyHidden> ({spelled})</VisuallyHidden>
    </time>
  )
}
