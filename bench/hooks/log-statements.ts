// `node --import ./bench/hooks/log-statements.ts src/main.ts` appends every SQL
// statement the service sends (PostgreSQL through pg, or PGlite) to STATEMENT_LOG,
// one line each, BEGIN and COMMIT included. Used by orders.bench.ts to count the
// statements of one request on the real service; never for timing.
import { appendFileSync } from 'node:fs'
import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'

const file = process.env.STATEMENT_LOG!
const record = (text: unknown) => {
  if (typeof text === 'string') appendFileSync(file, `${text.replace(/\s+/g, ' ').trim()}\n`)
}

type AnyFn = (...args: unknown[]) => unknown

const pgQuery = pg.Client.prototype.query as unknown as AnyFn
;(pg.Client.prototype as unknown as { query: AnyFn }).query = function (this: unknown, ...args: unknown[]) {
  const first = args[0]
  record(typeof first === 'string' ? first : (first as { text?: string } | undefined)?.text)
  return pgQuery.apply(this, args)
}

const proto = PGlite.prototype as unknown as { query: AnyFn; exec: AnyFn; transaction: AnyFn }
const liteQuery = proto.query
proto.query = function (this: unknown, ...args: unknown[]) {
  record(args[0])
  return liteQuery.apply(this, args)
}
const liteExec = proto.exec
proto.exec = function (this: unknown, ...args: unknown[]) {
  record(args[0])
  return liteExec.apply(this, args)
}
const liteTransaction = proto.transaction
proto.transaction = function (this: unknown, callback: unknown) {
  record('BEGIN')
  return liteTransaction.call(this, async (tx: { query: AnyFn }) => {
    const txQuery = tx.query.bind(tx)
    tx.query = (...args: unknown[]) => {
      record(args[0])
      return txQuery(...args)
    }
    const result = await (callback as AnyFn)(tx)
    record('COMMIT')
    return result
  })
}
