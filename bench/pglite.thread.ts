// Worker-thread side of the PGlite-in-a-worker prototype (bench only): owns one
// PGlite instance and runs the wire-protocol messages (node-postgres) or the
// statements (PGliteDialect) the main thread posts, one thread message each. The
// main thread (pglite-worker.ts) keeps a transaction's statements together; this
// side just executes in arrival order.
import { mkdirSync } from 'node:fs'
import { parentPort, workerData } from 'node:worker_threads'
import { PGlite } from '@electric-sql/pglite'
import { durablePgliteOptions } from '../src/db/embedded.ts'

interface Request {
  id: number
  sql?: string
  params?: unknown[]
  rowMode?: 'array' | 'object'
  close?: boolean
  /** One wire-protocol message for execProtocolStream. */
  protocol?: Uint8Array
}

const port = parentPort!
const { dir } = workerData as { dir: string | undefined }
if (dir) mkdirSync(dir, { recursive: true })
// Durable like the service's (src/db/embedded.ts), so the comparison stays fair.
const pglite = dir ? await PGlite.create(dir, durablePgliteOptions(dir)) : await PGlite.create()

/**
 * Only plain values cross the thread boundary: PGlite errors and backend messages
 * (DatabaseError carries code, detail, constraint...) lose their class and keep
 * their fields; arrays (row values, field descriptions) and byte arrays clone as they are.
 */
function plain(err: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = { message: (err as Error)?.message ?? String(err) }
  if (err && typeof err === 'object') {
    for (const [k, v] of Object.entries(err)) {
      if (v === null || ['string', 'number', 'boolean'].includes(typeof v) || Array.isArray(v)) out[k] = v
      else if (v instanceof Uint8Array) out[k] = v
    }
  }
  return out
}

port.on('message', async (msg: Request) => {
  if (msg.close) {
    await pglite.close()
    port.postMessage({ id: msg.id, result: null })
    return
  }
  try {
    if (msg.protocol !== undefined) {
      const messages = await pglite.execProtocolStream(msg.protocol, { throwOnError: false })
      port.postMessage({ id: msg.id, result: messages.map(plain) })
      return
    }
    const { rows, affectedRows, fields } = await pglite.query(msg.sql!, msg.params ?? [], {
      rowMode: msg.rowMode ?? 'object',
    })
    port.postMessage({ id: msg.id, result: { rows, affectedRows, fields } })
  } catch (err) {
    port.postMessage({ id: msg.id, error: plain(err) })
  }
})
port.postMessage({ ready: true })
