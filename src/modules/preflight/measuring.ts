import { fileURLToPath } from 'node:url'
import { exchange, spawnWorker, type WorkerProcess } from '../../lib/worker-process.ts'
import { MEASURING_LIMITS, type Measurement } from './facts.ts'

const WORKER_PATH = fileURLToPath(new URL('./facts.worker.ts', import.meta.url))

export interface MeasuringOptions {
  timeLimitMs: number
  memoryLimitMb: number
  /** A worker idle this long is stopped (it holds libvips and pdf-lib). */
  idleMs: number
}

/**
 * Measures files in a worker process of their own, one at a time, so that
 * decoding never blocks the event loop, and a file that costs too much is
 * stopped by the worker's time limit or heap cap and recorded as not
 * measurable, the service unaffected. The worker starts on demand and stops
 * when idle.
 */
export function createMeasuring(overrides: Partial<MeasuringOptions> = {}) {
  const options: MeasuringOptions = {
    timeLimitMs: MEASURING_LIMITS.timeLimitMs,
    memoryLimitMb: MEASURING_LIMITS.memoryLimitMb,
    idleMs: 30_000,
    ...overrides,
  }
  let worker: WorkerProcess | undefined
  let idle: NodeJS.Timeout | undefined
  let chain: Promise<unknown> = Promise.resolve()

  const stop = () => {
    worker?.child.kill('SIGKILL')
    worker = undefined
  }

  function once(bytes: Buffer, contentType: string): Promise<Measurement> {
    clearTimeout(idle)
    worker ??= spawnWorker(WORKER_PATH, options.memoryLimitMb)
    const current = worker
    const type = Buffer.from(contentType, 'latin1')
    const frame = Buffer.concat([Buffer.from([type.length]), type, bytes])
    return new Promise((resolve) => {
      exchange<Measurement>(current, frame, options.timeLimitMs, (outcome) => {
        if (outcome.kind !== 'answer') stop()
        idle = setTimeout(stop, options.idleMs)
        idle.unref()
        switch (outcome.kind) {
          case 'answer':
            return resolve(outcome.answer)
          case 'timeout':
            return resolve({
              ok: false,
              reason: `Measuring the file took longer than ${options.timeLimitMs / 1000} s.`,
            })
          case 'out_of_memory':
            return resolve({
              ok: false,
              reason: `Measuring the file needed more than ${options.memoryLimitMb} MB of memory.`,
            })
          default:
            return resolve({ ok: false, reason: 'Measuring the file stopped its worker process.' })
        }
      })
    })
  }

  return {
    /** The file's facts and thumbnail, or why it could not be measured; files wait their turn. */
    measure(bytes: Buffer, contentType: string): Promise<Measurement> {
      const result = chain.then(() => once(bytes, contentType))
      chain = result.catch(() => {})
      return result
    },
    close(): void {
      clearTimeout(idle)
      stop()
    },
  }
}

export type Measuring = ReturnType<typeof createMeasuring>
