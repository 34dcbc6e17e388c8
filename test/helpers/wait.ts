import { setTimeout as sleep } from 'node:timers/promises'

export interface WaitOptions {
  /** Gives up after this long (default 10 s). */
  timeoutMs?: number
  /** Looks again after this long (default 20 ms). */
  intervalMs?: number
  /** Added to the timeout error, for instance a process's output. */
  details?: () => string
}

/**
 * Polls `check` until it returns something truthy and returns that; throws
 * naming `what` after the timeout (`options` as a number: the timeout in ms).
 */
export async function waitUntil<T>(
  check: () => T | Promise<T>,
  what: string,
  options: WaitOptions | number = {},
): Promise<Exclude<T, false | null | undefined | 0 | ''>> {
  const {
    timeoutMs = 10_000,
    intervalMs = 20,
    details,
  } = typeof options === 'number' ? { timeoutMs: options } : options
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value) return value as Exclude<T, false | null | undefined | 0 | ''>
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${details ? `:\n${details()}` : ''}`,
      )
    }
    await sleep(intervalMs)
  }
}
