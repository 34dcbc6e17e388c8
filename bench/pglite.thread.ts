// Worker-thread side of the PGlite-in-a-worker prototype (bench only): owns one
// PGlite instance and runs the statements the main thread posts, one message per
// statement. The main thread (pglite-worker.ts) keeps a transaction's statements
// together; this side just executes in arrival order.
import { mkdirSync } from 'node:fs'
import { parentPort, workerData } from 'node:worker_threads'
import { PGlite } from '@electric-sql/pglite'

interface Request {
  id: number
  sql?: string
  params?: unknown[]
  rowMode?: 'array' | 'object'
  close?: boolean
  /** LISTEN on a channel; notifications come back as { notify: id, payload }. */
  listen?: string
  /** The id of the listen request to undo. */
  unlisten?: number
}

const subscriptions = new Map<number, () => Promise<void>>()

const port = parentPort!
const { dir, rawOids } = workerData as { dir: string | undefined; rawOids: number[] }
// Types the main thread parses itself (its parsers are functions and cannot be sent) arrive as text.
const parsers = Object.fromEntries(rawOids.map((oid) => [oid, (text: string) => text]))
if (dir) mkdirSync(dir, { recursive: true })
const pglite = dir ? await PGlite.create(dir, { parsers }) : await PGlite.create({ parsers })

/** Only plain values cross the thread boundary: PGlite errors carry code, detail, constraint... */
function plainError(err: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = { message: (err as Error)?.message ?? String(err) }
  if (err && typeof err === 'object') {
    for (const [k, v] of Object.entries(err)) {
      if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) out[k] = v
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
    if (msg.listen !== undefined) {
      const unsubscribe = await pglite.listen(msg.listen, (payload) =>
        port.postMessage({ notify: msg.id, payload }),
      )
      subscriptions.set(msg.id, unsubscribe)
      port.postMessage({ id: msg.id, result: null })
      return
    }
    if (msg.unlisten !== undefined) {
      await subscriptions.get(msg.unlisten)?.()
      subscriptions.delete(msg.unlisten)
      port.postMessage({ id: msg.id, result: null })
      return
    }
    const { rows, affectedRows, fields } = await pglite.query(msg.sql!, msg.params ?? [], {
      rowMode: msg.rowMode ?? 'object',
    })
    port.postMessage({ id: msg.id, result: { rows, affectedRows, fields } })
  } catch (err) {
    port.postMessage({ id: msg.id, error: plainError(err) })
  }
})
port.postMessage({ ready: true })
