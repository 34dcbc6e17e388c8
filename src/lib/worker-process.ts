import { type ChildProcess, fork } from 'node:child_process'

/*
 * A worker process that takes one file at a time: its start, with a heap cap
 * and its stderr's end kept, and one file's exchange with it. The files go in
 * through stdin, each as its length (4 bytes, big-endian) and its bytes
 * (`readFrames` is the worker's side); answers come back over the IPC channel.
 * Used by the SVG sanitizer (uploads/svg-pool.ts) and the file measuring of
 * preflight (preflight/measuring.ts).
 */

/** What V8 prints when a heap runs out. */
const OUT_OF_MEMORY = /heap out of memory|Allocation failed/

export interface WorkerProcess {
  child: ChildProcess
  /** The end of what the process wrote to stderr. */
  stderr(): string
}

/** A new worker process running `path` with the heap cap; it never keeps the service alive. */
export function spawnWorker(path: string, memoryLimitMb: number): WorkerProcess {
  const child = fork(path, [], {
    execArgv: [`--max-old-space-size=${memoryLimitMb}`],
    serialization: 'advanced',
    // A write to a pipe does not hold the event loop, as serializing 20 MB
    // for the IPC channel did (70 ms).
    stdio: ['pipe', 'ignore', 'pipe', 'ipc'],
  })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4096)
  })
  // An unfinished task is abandoned with the worker.
  child.unref()
  child.channel?.unref()
  for (const pipe of [child.stdin, child.stderr]) (pipe as unknown as { unref(): void }).unref()
  // Errors are the running task's (below); an unhandled one would end the process.
  child.on('error', () => {})
  child.stdin?.on('error', () => {})
  return { child, stderr: () => stderr }
}

/** How one file's exchange ended. */
export type Exchange<Answer> =
  /** The worker answered; it may be kept for the next file. */
  | { kind: 'answer'; answer: Answer }
  /** The time limit passed; the worker must be stopped. */
  | { kind: 'timeout' }
  /** The worker ran out of heap and ended. */
  | { kind: 'out_of_memory' }
  /** The worker ended otherwise. */
  | { kind: 'exited' }
  /** Talking to the worker failed. */
  | { kind: 'failed'; error: Error }

/** Hands one file to the worker and tells `done` once, from the event that decided it. */
export function exchange<Answer>(
  worker: WorkerProcess,
  bytes: Buffer,
  timeLimitMs: number,
  done: (outcome: Exchange<Answer>) => void,
): void {
  let settled = false
  const finish = (outcome: Exchange<Answer>) => {
    if (settled) return
    settled = true
    clearTimeout(timer)
    worker.child.off('message', onMessage)
    worker.child.off('error', onError)
    worker.child.off('close', onExit)
    done(outcome)
  }
  const onMessage = (answer: Answer) => finish({ kind: 'answer', answer })
  const onError = (error: Error) => finish({ kind: 'failed', error })
  const onExit = () => finish({ kind: OUT_OF_MEMORY.test(worker.stderr()) ? 'out_of_memory' : 'exited' })
  const timer = setTimeout(() => finish({ kind: 'timeout' }), timeLimitMs)
  worker.child.on('message', onMessage)
  worker.child.on('error', onError)
  // 'close' rather than 'exit': by then stderr has been read to its end.
  worker.child.on('close', onExit)
  const length = Buffer.alloc(4)
  length.writeUInt32BE(bytes.length)
  worker.child.stdin?.write(length)
  worker.child.stdin?.write(bytes)
}

/** The worker's side: calls `handle` with each file that arrives on stdin, in order. */
export function readFrames(handle: (file: Buffer) => void): void {
  let chunks: Buffer[] = []
  let received = 0
  let expected: number | undefined
  process.stdin.on('data', (chunk: Buffer) => {
    chunks.push(chunk)
    received += chunk.length
    for (;;) {
      if (expected === undefined && received >= 4) {
        const all = Buffer.concat(chunks)
        expected = all.readUInt32BE(0)
        chunks = [all.subarray(4)]
        received -= 4
      }
      if (expected === undefined || received < expected) return
      const all = Buffer.concat(chunks)
      const file = all.subarray(0, expected)
      chunks = [all.subarray(expected)]
      received -= expected
      expected = undefined
      handle(file)
    }
  })
}
