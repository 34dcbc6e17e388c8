// Main-thread side of the PGlite-in-a-worker prototype (bench only). WorkerPGlite
// implements the subset of PGlite that Kysely's PGliteDialect uses (query,
// transaction, close, ready, waitReady, closed), forwarding every statement to
// pglite.thread.ts. The embedded database's synchronous WASM work then runs on
// another core instead of blocking the HTTP event loop; each statement costs a
// message round trip between the threads instead.
import { Worker } from 'node:worker_threads'
import type { PGliteQueryOptions, PGliteQueryResults, PGliteTransaction } from 'kysely'

interface Reply {
  id?: number
  ready?: boolean
  notify?: number
  payload?: string
  result?: PGliteQueryResults<unknown> | null
  error?: Record<string, unknown>
}

export interface WorkerPGliteOptions {
  /** Type parsers by OID; applied on this thread (functions cannot be sent to the worker). */
  parsers?: Record<number, (text: string) => unknown>
}

export class WorkerPGlite {
  ready = false
  closed = false
  readonly waitReady: Promise<void>
  readonly #worker: Worker
  readonly #parsers: Map<number, (text: string) => unknown>
  readonly #pending = new Map<number, { resolve: (r: unknown) => void; reject: (e: Error) => void }>()
  readonly #listeners = new Map<number, (payload: string) => void>()
  #nextId = 1
  /** One session in the worker: a transaction holds it from BEGIN to COMMIT. */
  #lock: Promise<void> = Promise.resolve()

  /** Same arguments as PGlite.create: a data directory (none: in memory) and options. */
  constructor(dir: string | undefined, options: WorkerPGliteOptions = {}) {
    this.#parsers = new Map(Object.entries(options.parsers ?? {}).map(([oid, fn]) => [Number(oid), fn]))
    this.#worker = new Worker(new URL('./pglite.thread.ts', import.meta.url), {
      workerData: { dir, rawOids: [...this.#parsers.keys()] },
    })
    this.waitReady = new Promise((resolve, reject) => {
      this.#worker.once('error', reject)
      this.#worker.on('message', (msg: Reply) => {
        if (msg.ready) {
          this.ready = true
          resolve()
          return
        }
        if (msg.notify !== undefined) {
          this.#listeners.get(msg.notify)?.(msg.payload ?? '')
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

  static async create(
    dirOrOptions?: string | WorkerPGliteOptions,
    maybeOptions?: WorkerPGliteOptions,
  ): Promise<WorkerPGlite> {
    const db =
      typeof dirOrOptions === 'string'
        ? new WorkerPGlite(dirOrOptions, maybeOptions)
        : new WorkerPGlite(undefined, dirOrOptions)
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

  async #run<T>(sql: string, params: unknown[] | undefined, options: PGliteQueryOptions | undefined) {
    const result = await this.#send<PGliteQueryResults<T>>({
      sql,
      params: params ?? [],
      rowMode: options?.rowMode,
    })
    if (this.#parsers.size > 0 && options?.rowMode !== 'array') {
      for (const field of result.fields) {
        const parse = this.#parsers.get(field.dataTypeID)
        if (!parse) continue
        for (const row of result.rows as Record<string, unknown>[]) {
          const value = row[field.name]
          if (typeof value === 'string') row[field.name] = parse(value)
        }
      }
    }
    return result
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

  /** PGlite's LISTEN: the callback runs on this thread; resolves to the unsubscribe function. */
  async listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>> {
    const id = this.#nextId
    this.#listeners.set(id, callback)
    await this.#send({ listen: channel })
    return async () => {
      this.#listeners.delete(id)
      if (!this.closed) await this.#send({ unlisten: id })
    }
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.#send({ close: true })
    await this.#worker.terminate()
  }
}
