import { type SvgOutcome, sanitizeIn, spawnWorker, type WorkerProcess } from './svg-worker-process.ts'

export type { SvgOutcome } from './svg-worker-process.ts'

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

export function createSvgSanitizer(overrides: Partial<SvgSanitizerOptions> = {}) {
  const options = { ...SVG_SANITIZER_DEFAULTS, ...overrides }
  const queue: Task[] = []
  /** When each owner's last file started; owners never served (or long ago) go first. */
  const served = new Map<string, number>()
  let starts = 0
  const idle: { worker: WorkerProcess; timer: NodeJS.Timeout }[] = []
  let busy = 0
  const running = new Set<WorkerProcess>()

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
    const worker = reused?.worker ?? spawnWorker(options.memoryLimitMb)
    running.add(worker)
    sanitizeIn(worker, bytes, options, (outcome, keep) => {
      running.delete(worker)
      if (!keep) stop(worker)
      if (outcome instanceof Error) task.reject(outcome)
      else task.resolve(outcome)
      release(keep ? worker : undefined)
    })
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
