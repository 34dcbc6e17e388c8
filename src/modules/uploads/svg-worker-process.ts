import { type ChildProcess, fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { SvgResult } from './svg.worker.ts'

/*
 * One worker process of the SVG sanitizer pool (svg-pool.ts): starting it,
 * and one file's exchange with it (svg.worker.ts is the other side).
 */

export type SvgOutcome =
  | { kind: 'ok'; svg: Buffer }
  | { kind: 'malformed' }
  | { kind: 'too_complex'; message: string }

const WORKER_PATH = fileURLToPath(new URL('./svg.worker.ts', import.meta.url))
/** What V8 prints when a heap runs out; anything else that ends a worker mid-file is a failure. */
const OUT_OF_MEMORY = /heap out of memory|Allocation failed/

export interface WorkerProcess {
  child: ChildProcess
  /** The end of what the process wrote to stderr. */
  stderr(): string
}

/** A new worker process with the heap cap, its stderr's end kept; it never keeps the service alive. */
export function spawnWorker(memoryLimitMb: number): WorkerProcess {
  const child = fork(WORKER_PATH, [], {
    execArgv: [`--max-old-space-size=${memoryLimitMb}`],
    serialization: 'advanced',
    // Files go in through stdin (svg.worker.ts): a write to a pipe does not
    // hold the event loop, as serializing 20 MB for the IPC channel did (70 ms).
    stdio: ['pipe', 'ignore', 'pipe', 'ipc'],
  })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4096)
  })
  // A worker never keeps the service alive; an unfinished task is abandoned with it.
  child.unref()
  child.channel?.unref()
  for (const pipe of [child.stdin, child.stderr]) (pipe as unknown as { unref(): void }).unref()
  // Errors are the running task's (below); an unhandled one would end the process.
  child.on('error', () => {})
  child.stdin?.on('error', () => {})
  return { child, stderr: () => stderr }
}

/**
 * Hands one file to the worker and tells `done` once, from the event that
 * decided it: the worker's answer (the worker may be kept), or its error, its
 * end, or the time limit (the worker must be stopped).
 */
export function sanitizeIn(
  worker: WorkerProcess,
  bytes: Buffer,
  limits: { timeLimitMs: number; memoryLimitMb: number },
  done: (outcome: SvgOutcome | Error, keep: boolean) => void,
): void {
  let settled = false
  const finish = (outcome: SvgOutcome | Error, keep: boolean) => {
    if (settled) return
    settled = true
    clearTimeout(timer)
    worker.child.off('message', onMessage)
    worker.child.off('error', onError)
    worker.child.off('close', onExit)
    done(outcome, keep)
  }
  const onMessage = (result: SvgResult) =>
    finish(
      result.kind === 'ok'
        ? { kind: 'ok', svg: Buffer.from(result.svg.buffer, result.svg.byteOffset, result.svg.byteLength) }
        : result,
      true,
    )
  const onError = (err: Error) => finish(err, false)
  const tooMuchMemory: SvgOutcome = {
    kind: 'too_complex',
    message: `Sanitizing the SVG file needs more than ${limits.memoryLimitMb} MB of memory.`,
  }
  const onExit = () =>
    finish(
      OUT_OF_MEMORY.test(worker.stderr()) ? tooMuchMemory : new Error('The SVG worker stopped unexpectedly.'),
      false,
    )
  const timer = setTimeout(
    () =>
      finish(
        {
          kind: 'too_complex',
          message: `Sanitizing the SVG file takes longer than ${limits.timeLimitMs / 1000} s.`,
        },
        false,
      ),
    limits.timeLimitMs,
  )
  worker.child.on('message', onMessage)
  worker.child.on('error', onError)
  // 'close' rather than 'exit': by then stderr has been read to its end.
  worker.child.on('close', onExit)
  const length = Buffer.alloc(4)
  length.writeUInt32BE(bytes.length)
  worker.child.stdin?.write(length)
  worker.child.stdin?.write(bytes)
}
