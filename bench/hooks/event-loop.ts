// `node --import ./bench/hooks/event-loop.ts src/main.ts`: every 50 ms the
// service appends its worst event-loop delay over the past interval (ms) to
// EVENT_LOOP_LOG as one JSON line `{"at": <epoch ms>, "max": ..}`: the larger of
// perf_hooks' histogram and this timer's own lateness (the histogram's timer may
// record a long stall only after this one has read it). A stalled loop writes
// its line late, with the stall in `max`. Used by svg-hostile.bench.ts; signals
// are not an option (close-with-grace takes them).
import { appendFileSync } from 'node:fs'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { isMainThread } from 'node:worker_threads'

const file = process.env.EVENT_LOOP_LOG!
const INTERVAL_MS = 50
// --import also runs in worker threads; only the main thread serves requests.
if (isMainThread) {
  const histogram = monitorEventLoopDelay({ resolution: 5 })
  histogram.enable()
  let last = performance.now()
  setInterval(() => {
    const now = performance.now()
    const max = Math.max(histogram.max / 1e6, now - last - INTERVAL_MS)
    last = now
    appendFileSync(file, `${JSON.stringify({ at: Date.now(), max })}\n`)
    histogram.reset()
  }, INTERVAL_MS).unref()
}
