import { readFrames } from '../../lib/worker-process.ts'
import type { Measurement } from './facts.ts'
import { measureFile } from './measure.ts'

/**
 * Worker process of file measuring (measuring.ts): one file at a time, each
 * preceded by its content type (a length byte and the type's ASCII), its
 * measurement sent back over the IPC channel.
 */
const queue: Buffer[] = []
let busy = false

async function next(): Promise<void> {
  if (busy) return
  const frame = queue.shift()
  if (!frame) return
  busy = true
  const typeLength = frame[0]!
  const contentType = frame.toString('latin1', 1, 1 + typeLength)
  let result: Measurement
  try {
    result = await measureFile(frame.subarray(1 + typeLength), contentType)
  } catch (err) {
    result = {
      ok: false,
      reason: `Measuring failed: ${err instanceof Error ? err.message.slice(0, 200) : 'unknown error'}.`,
    }
  }
  process.send!(result)
  busy = false
  void next()
}

readFrames((frame) => {
  queue.push(frame)
  void next()
})
