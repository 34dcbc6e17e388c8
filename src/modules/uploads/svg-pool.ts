import { type ChildProcess, fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { SvgResult } from './svg.worker.ts'

/**
 * Sanitizes SVG files in worker processes, so that parsing a large file never
 * blocks the event loop, and a file that still costs too much within the
 * limits (svg-limits.ts) is stopped by the worker's memory cap or time limit
 * and refused, instead of taking the service down. Processes rather than
 * threads: a worker thread's heap limit is best effort, and an allocation that
 * overshoots it aborts the whole process (nodejs/node#47224), while a worker
 * process that runs out of heap ends alone. Workers start on demand and stop
 * when idle (each holds jsdom, about 100 MB).
 */
export interface SvgSanitizerOptions {
  /** Files sanitized at once. */
  threads: number
  /** Wall-clock time one file may take in its worker. */
  timeLimitMs: number
  /** Heap (V8 old generation) of one worker. */
  memoryLimitMb: number
  /** A file that waited this long for a free worker is not started (503). */
  queueLimitMs: number
  idleMs: number
}

export const SVG_SANITIZER_DEFAULTS: SvgSanitizerOptions = {
  threads: 1,
  timeLimitMs: 30_000,
  memoryLimitMb: 1024,
  queueLimitMs: 60_000,
  idleMs: 30_000,
}

export type SvgOutcome =
  | { kind: 'ok'; svg: Buffer }
  | { kind: 'malformed' }
  | { kind: 'too_complex'; message: string }

/** No worker became free in time; the caller answers 503. */
export class SvgQueueTimeout extends Error {}

interface Task {
  /** Whose file (the organization): waiting files are taken in turns of owners. */
  owner: string
  load: () => Promise<Buffer>
  /** Refuses the task if it is still waiting at queueLimitMs. */
  expiry: NodeJS.Timeout
  resolve: (outcome: SvgOutcome) => void
  reject: (err: unknown) => void
}

const WORKER_PATH = fileURLToPath(new URL('./svg.worker.ts', import.meta.url))
/** What V8 prints when a heap runs out; anything else that ends a worker mid-file is a failure. */
const OUT_OF_MEMORY = /heap out of memory|Allocation failed/

interface WorkerProcess {
  child: ChildProcess
  /** The end of what the process wrote to stderr. */
  stderr(): string
}

export function createSvgSanitizer(overrides: Partial<SvgSanitizerOptions> = {}) {
  const options = { ...SVG_SANITIZER_DEFAULTS, ...overrides }
  const queue: Task[] = []
  /** When each owner's last file started; owners never served (or long ago) go first. */
  const served = new Map<string, number>()
  let starts = 0
  const idle: { worker: WorkerProcess; timer: NodeJS.Timeout }[] = []
  let busy = 0
  const running = new Set<WorkerProcess>()

  function spawn(): WorkerProcess {
    const child = fork(WORKER_PATH, [], {
      execArgv: [`--max-old-space-size=${options.memoryLimitMb}`],
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

  const stop = (worker: WorkerProcess) => {
    worker.child.kill('SIGKILL')
  }

  function release(worker: WorkerProcess | undefined): void {
    busy -= 1
    if (worker) {
      const timer = setTimeout(() => {
        const i = idle.findIndex((w) => w.worker === worker)
        if (i >= 0) idle.splice(i, 1)
        stop(worker)
      }, options.idleMs)
      timer.unref()
      idle.push({ worker, timer })
    }
    next()
  }

  function next(): void {
    while (busy < options.threads && queue.length > 0) {
      // One owner's backlog must not hold up everyone else's files.
      let pick = 0
      for (let i = 1; i < queue.length; i++) {
        if ((served.get(queue[i]!.owner) ?? -1) < (served.get(queue[pick]!.owner) ?? -1)) pick = i
      }
      const task = queue.splice(pick, 1)[0]!
      served.delete(task.owner)
      served.set(task.owner, starts++)
      if (served.size > 1000) served.delete(served.keys().next().value!)
      clearTimeout(task.expiry)
      busy += 1
      void run(task)
    }
  }

  async function run(task: Task): Promise<void> {
    let bytes: Buffer
    try {
      bytes = await task.load()
    } catch (err) {
      task.reject(err)
      release(undefined)
      return
    }
    const reused = idle.pop()
    if (reused) clearTimeout(reused.timer)
    const worker = reused?.worker ?? spawn()
    running.add(worker)
    let settled = false
    const finish = (outcome: SvgOutcome | Error, keep: boolean) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      worker.child.off('message', onMessage)
      worker.child.off('error', onError)
      worker.child.off('close', onExit)
      running.delete(worker)
      if (!keep) stop(worker)
      if (outcome instanceof Error) task.reject(outcome)
      else task.resolve(outcome)
      release(keep ? worker : undefined)
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
      message: `Sanitizing the SVG file needs more than ${options.memoryLimitMb} MB of memory.`,
    }
    const onExit = () =>
      finish(
        OUT_OF_MEMORY.test(worker.stderr())
          ? tooMuchMemory
          : new Error('The SVG worker stopped unexpectedly.'),
        false,
      )
    const timer = setTimeout(
      () =>
        finish(
          {
            kind: 'too_complex',
            message: `Sanitizing the SVG file takes longer than ${options.timeLimitMs / 1000} s.`,
          },
          false,
        ),
      options.timeLimitMs,
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

  return {
    /**
     * Sanitizes the file `load` returns; it is read only once a worker is free,
     * and its Buffer is handed over to the worker (unusable afterwards). Files
     * waiting for a worker are taken in turns of `owner`.
     */
    sanitize(load: () => Promise<Buffer>, owner = ''): Promise<SvgOutcome> {
      return new Promise((resolve, reject) => {
        const task: Task = {
          owner,
          load,
          resolve,
          reject,
          expiry: setTimeout(() => {
            queue.splice(queue.indexOf(task), 1)
            reject(new SvgQueueTimeout('No SVG worker became free in time.'))
          }, options.queueLimitMs),
        }
        queue.push(task)
        next()
      })
    },
    /** Stops every worker; files still waiting are refused with SvgQueueTimeout. */
    async close(): Promise<void> {
      for (const task of queue.splice(0)) {
        clearTimeout(task.expiry)
        task.reject(new SvgQueueTimeout('The service is shutting down.'))
      }
      for (const w of idle) clearTimeout(w.timer)
      const workers = [...idle.splice(0).map((w) => w.worker), ...running]
      await Promise.all(
        workers
          .filter(({ child }) => child.exitCode === null && child.signalCode === null)
          .map(({ child }) => {
            const exited = new Promise((resolve) => child.once('exit', resolve))
            child.kill('SIGKILL')
            return exited
          }),
      )
    },
  }
}

export type SvgSanitizer = ReturnType<typeof createSvgSanitizer>
