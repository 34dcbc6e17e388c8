const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export interface WaitOptions {
  /** Gives up after this long (default 10 s). */
  timeoutMs?: number
  /** Looks again after this long (default 20 ms). */
  intervalMs?: number
  /** Added to the timeout error, for instance a process's output. */
  details?: () => string
}

/** Polls `check` until it returns something truthy and returns that; throws naming `what` after the timeout. */
export async function waitUntil<T>(
  what: string,
  check: () => T | Promise<T>,
  options: WaitOptions = {},
): Promise<NonNullable<T>> {
  const { timeoutMs = 10_000, intervalMs = 20, details } = options
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value) return value
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${details ? `:\n${details()}` : ''}`,
      )
    }
    await sleep(intervalMs)
  }
}
