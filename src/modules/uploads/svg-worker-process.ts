import { fileURLToPath } from 'node:url'
import { exchange, spawnWorker as spawn, type WorkerProcess } from '../../lib/worker-process.ts'
import type { SvgResult } from './svg.worker.ts'

/*
 * One worker process of the SVG sanitizer pool (svg-pool.ts): starting it,
 * and one file's exchange with it (svg.worker.ts is the other side).
 */

export type { WorkerProcess } from '../../lib/worker-process.ts'

export type SvgOutcome =
  | { kind: 'ok'; svg: Buffer }
  | { kind: 'malformed' }
  | { kind: 'too_complex'; message: string }

const WORKER_PATH = fileURLToPath(new URL('./svg.worker.ts', import.meta.url))

/** A new SVG worker process with the heap cap. */
export const spawnWorker = (memoryLimitMb: number): WorkerProcess => spawn(WORKER_PATH, memoryLimitMb)

/**
 * Hands one file to the worker and tells `done` once: the worker's answer (the
 * worker may be kept), or its error, its end, or the time limit (the worker
 * must be stopped).
 */
export function sanitizeIn(
  worker: WorkerProcess,
  bytes: Buffer,
  limits: { timeLimitMs: number; memoryLimitMb: number },
  done: (outcome: SvgOutcome | Error, keep: boolean) => void,
): void {
  exchange<SvgResult>(worker, bytes, limits.timeLimitMs, (outcome) => {
    switch (outcome.kind) {
      case 'answer': {
        const result = outcome.answer
        done(
          result.kind === 'ok'
            ? {
                kind: 'ok',
                svg: Buffer.from(result.svg.buffer, result.svg.byteOffset, result.svg.byteLength),
              }
            : result,
          true,
        )
        return
      }
      case 'timeout':
        done(
          {
            kind: 'too_complex',
            message: `Sanitizing the SVG file takes longer than ${limits.timeLimitMs / 1000} s.`,
          },
          false,
        )
        return
      case 'out_of_memory':
        done(
          {
            kind: 'too_complex',
            message: `Sanitizing the SVG file needs more than ${limits.memoryLimitMb} MB of memory.`,
          },
          false,
        )
        return
      case 'exited':
        done(new Error('The SVG worker stopped unexpectedly.'), false)
        return
      case 'failed':
        done(outcome.error, false)
    }
  })
}
