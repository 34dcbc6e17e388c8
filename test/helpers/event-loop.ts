import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'

/** CPU time of this thread (the event loop's), in ms. */
const loopCpuMs = () => {
  const { user, system } = process.threadCpuUsage()
  return (user + system) / 1000
}

/**
 * How long the event loop was held at most while `run` runs: the CPU time its
 * thread spent between two ticks of a 5 ms timer. CPU time rather than wall
 * time, so that waiting for a core on a busy machine does not count.
 */
export async function longestHold<T>(run: () => Promise<T>): Promise<{ result: T; stallMs: number }> {
  let last = loopCpuMs()
  let longest = 0
  const tick = () => {
    const now = loopCpuMs()
    longest = Math.max(longest, now - last)
    last = now
  }
  const ticker = setInterval(tick, 5)
  await sleep(20)
  longest = 0
  try {
    const result = await run()
    await sleep(20)
    tick()
    return { result, stallMs: longest }
  } finally {
    clearInterval(ticker)
  }
}

/**
 * The longest hold of the event loop while `run` runs, the least of up to
 * three tries (a collection of garbage left by another test can land in one);
 * work that really holds the loop does so every time.
 */
export async function leastHold<T>(
  run: () => Promise<T>,
  limitMs: number,
): Promise<{ result: T; stallMs: number }> {
  let best: { result: T; stallMs: number } | undefined
  for (let attempt = 0; attempt < 3; attempt++) {
    const measured = await longestHold(run)
    if (!best || measured.stallMs < best.stallMs) best = measured
    if (measured.stallMs < limitMs) break
  }
  return best!
}

/**
 * Runs `run` while GET /healthz is polled every 5 ms on the app, each poll
 * answering 200. `loopMaxMs` is the longest the event loop was held, in CPU
 * time of its thread (waiting for a core on a busy machine does not count);
 * `worstMs` the slowest /healthz answer in wall time.
 */
export async function whileHealthzPolled<T>(
  app: { inject(request: { method: 'GET'; url: string }): Promise<{ statusCode: number }> },
  run: () => Promise<T>,
): Promise<{ result: T; worstMs: number; loopMaxMs: number; polls: number }> {
  let done = false
  let worstMs = 0
  let polls = 0
  const { result, stallMs } = await longestHold(async () => {
    const poller = (async () => {
      while (!done) {
        const started = performance.now()
        const health = await app.inject({ method: 'GET', url: '/healthz' })
        assert.equal(health.statusCode, 200)
        worstMs = Math.max(worstMs, performance.now() - started)
        polls += 1
        await sleep(5)
      }
    })()
    try {
      return await run()
    } finally {
      done = true
      await poller
    }
  })
  return { result, worstMs, loopMaxMs: stallMs, polls }
}
