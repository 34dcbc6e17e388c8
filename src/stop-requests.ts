/** Signals that ask the service to stop; close-with-grace is told to leave them to us. */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const

/** A second signal this soon after the first is the same request delivered twice. */
const SAME_REQUEST_MS = 1000
const PARENT_CHECK_MS = 1000

export interface StopRequestOptions {
  /** Starts the graceful stop; called once. */
  stop(reason: { signal?: string; parentExited?: boolean }): void
  /** Exits at once: a repeated request to stop while stopping. */
  abort(signal: string): void
  /** Stop when the process that started this one exits (an `npm start` that was killed). */
  watchParent: boolean
}

/**
 * Stops the service on SIGINT or SIGTERM, and when its parent exits if told
 * to watch it. Ctrl-C in a terminal sends SIGINT to the whole foreground
 * group, and `npm start` forwards the one it gets too, so one Ctrl-C arrives
 * twice: a signal within a second of the first is not a second request. A
 * parent killed without the chance to forward a signal (SIGKILL) leaves this
 * process orphaned, which the parent check notices.
 */
export function handleStopRequests(options: StopRequestOptions): void {
  let first: number | undefined
  const onSignal = (signal: string) => {
    if (first === undefined) {
      first = Date.now()
      options.stop({ signal })
    } else if (Date.now() - first > SAME_REQUEST_MS) {
      options.abort(signal)
    }
  }
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal)
  if (!options.watchParent) return
  const parent = process.ppid
  const check = setInterval(() => {
    if (process.ppid === parent || first !== undefined) return
    clearInterval(check)
    first = Date.now()
    options.stop({ parentExited: true })
  }, PARENT_CHECK_MS)
  check.unref()
}
