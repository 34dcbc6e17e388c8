// `node --import ./bench/hooks/event-loop.ts src/main.ts`: every 50 ms the
// service appends its event-loop delay over the past interval (perf_hooks
// histogram, ms) to EVENT_LOOP_LOG as one JSON line `{"at": <epoch ms>, "max": ..}`.
// A stalled loop writes its line late, with the stall in `max`. Used by
// svg-hostile.bench.ts; signals are not an option (close-with-grace takes them).
import { appendFileSync } from 'node:fs'
import { monitorEventLoopDelay } from 'node:perf_hooks'

const file = process.env.EVENT_LOOP_LOG!
const histogram = monitorEventLoopDelay({ resolution: 5 })
histogram.enable()
setInterval(() => {
  appendFileSync(file, `${JSON.stringify({ at: Date.now(), max: histogram.max / 1e6 })}\n`)
  histogram.reset()
}, 50).unref()
