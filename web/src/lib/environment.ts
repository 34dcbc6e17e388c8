import { useEffect, useSyncExternalStore } from 'react'
import { useSearchParams } from 'react-router'
import { useSession } from '../features/auth/api/session.ts'

export type Env = 'live' | 'test'

/** Tells every mounted hook of this tab that the remembered choice changed (storage events reach other tabs only). */
const CHANGED = 'dashboard-environment'

const keyOf = (memberId: string | undefined) => (memberId ? `dashboard.environment.${memberId}` : null)

function read(key: string | null): Env {
  if (!key) return 'live'
  try {
    return localStorage.getItem(key) === 'test' ? 'test' : 'live'
  } catch {
    return 'live'
  }
}

function remember(key: string | null, env: Env) {
  if (!key || read(key) === env) return
  try {
    localStorage.setItem(key, env)
  } catch {
    // Storage refused (private mode, full): the choice lasts as long as the URL.
  }
  window.dispatchEvent(new Event(CHANGED))
}

function subscribe(onChange: () => void) {
  window.addEventListener(CHANGED, onChange)
  window.addEventListener('storage', onChange)
  return () => {
    window.removeEventListener(CHANGED, onChange)
    window.removeEventListener('storage', onChange)
  }
}

/** The member's last environment (Live until they pick Test), kept in this browser per member. */
export function useRememberedEnvironment(): [Env, (env: Env) => void] {
  const member = useSession().data
  const key = keyOf(member?.id)
  const env = useSyncExternalStore(subscribe, () => read(key))
  return [env, (next: Env) => remember(key, next)]
}

/**
 * A page's environment: the URL's `environment` when it names one (a shared
 * link), else the member's last choice; an environment named in the
 * address becomes the remembered one, so Orders, Webhooks and the banner agree.
 */
export function usePageEnvironment(): Env {
  const [params] = useSearchParams()
  const [remembered, setRemembered] = useRememberedEnvironment()
  const fromUrl = params.get('environment')
  const named = fromUrl === 'test' || fromUrl === 'live' ? fromUrl : null
  // Only when the address changes: the banner's Switch to Live must not be undone by a stale address.
  // biome-ignore lint/correctness/useExhaustiveDependencies: setRemembered is a new function each render
  useEffect(() => {
    if (named) setRemembered(named)
  }, [named])
  return named ?? remembered
}
