// Main-thread side of the PGlite-in-a-worker prototype (bench only). WorkerPGlite
// implements the subset of PGlite that the service and the bare routes use: what
// PGlite's node-postgres connection needs (execProtocolStream, onNotification,
// waitReady, close, closed), and what Kysely's PGliteDialect needs (query,
// transaction, ready), forwarding every protocol message or statement to
// pglite.thread.ts. The embedded database's synchronous WASM work then runs on
// another core instead of blocking the HTTP event loop; each statement costs a
// message round trip between the threads instead.
import { Worker } from 'node:worker_threads'
import type { PGliteQueryOptions, PGliteQueryResults, PGliteTransaction } from 'kysely'

/** A backend message as it crosses the thread boundary: plain fields, the class left behind. */
type BackendMessage = { name: string } & Record<string, unknown>

interface Reply {
  id?: number
  ready?: boolean
  result?: PGliteQueryResults<unknown> | null
  error?: Record<string, unknown>
}

export class WorkerPGlite {
  ready = false
  closed = false
  readonly waitReady: Promise<void>
  readonly #worker: Worker
  readonly #pending = new Map<number, { resolve: (r: unknown) => void; reject: (e: Error) => void }>()
  readonly #notificationListeners = new Set<(channel: string, payload: string) => void>()
  #nextId = 1
  /** One session in the worker: a transaction holds it from BEGIN to COMMIT. */
  #lock: Promise<void> = Promise.resolve()

  /** A data directory, as PGlite.create takes it (none: in memory). */
  constructor(dir: string | undefined) {
    this.#worker = new Worker(new URL('./pglite.thread.ts', import.meta.url), { workerData: { dir } })
    this.waitReady = new Promise((resolve, reject) => {
      this.#worker.once('error', reject)
      this.#worker.on('message', (msg: Reply) => {
        if (msg.ready) {
          this.ready = true
          resolve()
          return
        }
        const pending = this.#pending.get(msg.id!)
        if (!pending) return
        this.#pending.delete(msg.id!)
        if (msg.error) pending.reject(Object.assign(new Error(String(msg.error.message)), msg.error))
        else pending.resolve(msg.result)
      })
    })
  }

  static async create(dir?: string): Promise<WorkerPGlite> {
    const db = new WorkerPGlite(dir)
    await db.waitReady
    return db
  }

  #send<T>(message: Record<string, unknown>): Promise<T> {
    const id = this.#nextId++
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (r: unknown) => void, reject })
      this.#worker.postMessage({ ...message, id })
    })
  }

  #run<T>(sql: string, params: unknown[] | undefined, options: PGliteQueryOptions | undefined) {
    return this.#send<PGliteQueryResults<T>>({ sql, params: params ?? [], rowMode: options?.rowMode })
  }

  async #exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const previous = this.#lock
    let release!: () => void
    this.#lock = new Promise((resolve) => {
      release = resolve
    })
    await previous
    try {
      return await fn()
    } finally {
      release()
    }
  }

  query<T>(sql: string, params?: unknown[], options?: PGliteQueryOptions): Promise<PGliteQueryResults<T>> {
    return this.#exclusive(() => this.#run<T>(sql, params, options))
  }

  transaction<T>(callback: (tx: PGliteTransaction) => Promise<T>): Promise<T> {
    return this.#exclusive(async () => {
      await this.#run('BEGIN', [], undefined)
      let rolledBack = false
      const tx: PGliteTransaction = {
        query: <R>(sql: string, params?: unknown[], options?: PGliteQueryOptions) =>
          this.#run<R>(sql, params, options),
        rollback: async () => {
          rolledBack = true
          await this.#run('ROLLBACK', [], undefined)
        },
      }
      try {
        const result = await callback(tx)
        if (!rolledBack) await this.#run('COMMIT', [], undefined)
        return result
      } catch (err) {
        if (!rolledBack) await this.#run('ROLLBACK', [], undefined).catch(() => {})
        throw err
      }
    })
  }

  /**
   * One wire-protocol message run by the worker's PGlite, as PGlite's own method:
   * resolves to the backend's messages. Notifications among them go to onNotification.
   */
  async execProtocolStream(message: Uint8Array, options: { throwOnError?: boolean } = {}) {
    const messages = await this.#send<BackendMessage[]>({ protocol: message })
    let failure: Error | undefined
    const out = messages.map((m) => {
      if (m.name === 'notification') {
        for (const listener of this.#notificationListeners) {
          queueMicrotask(() => listener(String(m.channel), String(m.payload ?? '')))
        }
        return m
      }
      if (m.name !== 'error') return m
      // node-postgres hands the error message itself to the caller: make it an Error again.
      const error = Object.assign(new Error(String(m.message)), m)
      failure ??= error
      return error
    })
    if (failure && options.throwOnError !== false) throw failure
    return out
  }

  onNotification(callback: (channel: string, payload: string) => void): () => void {
    this.#notificationListeners.add(callback)
    return () => {
      this.#notificationListeners.delete(callback)
    }
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.#send({ close: true })
    await this.#worker.terminate()
  }
}
