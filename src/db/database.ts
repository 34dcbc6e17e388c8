import { createHash } from 'node:crypto'
import { createPgConfig } from '@electric-sql/pglite/node-postgres'
import { Kysely, PostgresDialect, type PostgresPool, sql } from 'kysely'
import { Migrator } from 'kysely/migration'
import pg from 'pg'
import { openPglite } from './embedded.ts'
import { migrationProvider } from './migrations/index.ts'
import type { DB } from './schema.ts'
import { breaksConnection } from './unavailable.ts'

export type Database = Kysely<DB>

export interface DatabaseOptions {
  /** postgres:// URL; without it the embedded PGlite is used. */
  url?: string | undefined
  /** Directory of the embedded database; without it PGlite lives in memory (tests). */
  dataDir?: string | undefined
  /** In-memory embedded database only: starts from this dump (`OpenedDatabase.dump`) instead of initdb; tests. */
  embeddedDump?: Blob | undefined
  /** PostgreSQL schema to work in (tests isolate each file in its own schema). */
  schema?: string | undefined
  /** Pool size for PostgreSQL. */
  poolSize?: number
  /** PostgreSQL settings for every session of the pool (`-c name=value`). */
  settings?: Record<string, string>
  /** Bounds on every wait for PostgreSQL; none for migrations and tests that need none. */
  timeouts?: DatabaseTimeouts | undefined
}

export interface DatabaseTimeouts {
  /** Connecting, and waiting for a free connection of the pool. */
  connectMs: number
  /** statement_timeout on the server; the client gives up one second later. */
  statementMs: number
}

/** A transaction left idle this long is a client that is gone: the server ends it and frees its locks. */
const IDLE_IN_TRANSACTION_MS = 30_000

/** node-postgres settings for the timeouts; keepalive finds a peer that vanished from an idle connection. */
function timeoutConfig(timeouts: DatabaseTimeouts | undefined): pg.ClientConfig {
  if (!timeouts) return {}
  return {
    connectionTimeoutMillis: timeouts.connectMs,
    statement_timeout: timeouts.statementMs,
    // The server cancels a slow statement itself and the connection stays usable;
    // this client-side bound only fires when the server cannot answer at all.
    query_timeout: timeouts.statementMs + 1000,
    idle_in_transaction_session_timeout: Math.max(IDLE_IN_TRANSACTION_MS, timeouts.statementMs),
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  }
}

/**
 * Subscribes to a NOTIFY channel; resolves (once listening) to the function
 * that unsubscribes. The payload is empty for the reconnect wake-up.
 */
export type Listen = (channel: string, onNotify: (payload: string) => void) => Promise<() => Promise<void>>

/** Connections of a pool, for the metrics. */
export interface PoolStats {
  max: number
  open: number
  idle: number
  /** Queries waiting for a connection. */
  waiting: number
}

export interface OpenedDatabase {
  db: Database
  dialect: 'postgres' | 'pglite'
  listen: Listen
  poolStats(): PoolStats
  /** The embedded database's files as a tarball (PGlite's dumpDataDir); absent on PostgreSQL. */
  dump?: () => Promise<Blob>
}

function poolStats(pool: pg.Pool): () => PoolStats {
  return () => ({
    max: pool.options.max,
    open: pool.totalCount,
    idle: pool.idleCount,
    waiting: pool.waitingCount,
  })
}

/** LISTEN on a dedicated connection that comes back after it drops (retrying until it can). */
function pgListen(connectionString: string, timeouts: DatabaseTimeouts | undefined): Listen {
  return async (channel, onNotify) => {
    let client: pg.Client | undefined
    let closed = false
    const connect = async (): Promise<void> => {
      const c = new pg.Client({ connectionString, ...timeoutConfig(timeouts) })
      c.on('notification', (msg) => msg.channel === channel && onNotify(msg.payload ?? ''))
      c.on('error', () => {
        if (closed || c !== client) return
        client = undefined
        c.end().catch(() => {})
        reconnect()
      })
      try {
        await c.connect()
        await c.query(`LISTEN ${pg.escapeIdentifier(channel)}`)
      } catch (err) {
        c.end().catch(() => {})
        throw err
      }
      if (closed) {
        await c.end().catch(() => {})
        return
      }
      client = c
      // Anything written while reconnecting is found by the next poll; wake now to look.
      onNotify('')
    }
    const reconnect = () => {
      setTimeout(() => {
        if (!closed) connect().catch(reconnect)
      }, 1000).unref()
    }
    await connect()
    return async () => {
      closed = true
      await client?.end().catch(() => {})
    }
  }
}

// COUNT(*) and other int8 results fit a JS number for every value this service sees.
const INT8_OID = 20
const pgTypes = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === INT8_OID ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text')) as never,
}

// Send Dates as UTC: with a local zone, node-pg writes historic instants with
// the zone's whole-minute offset and shifts them by its local-mean-time seconds.
pg.defaults.parseInputDatesAsUTC = true

/**
 * Runs repeated statements as named prepared statements: PostgreSQL parses and
 * plans each text once per connection instead of on every request. Names are
 * derived from the text, so every connection agrees on them; only the first
 * MAX_PREPARED distinct texts are prepared (texts that vary with input, such as
 * IN lists of different lengths, stay unnamed once the budget is spent).
 */
const MAX_PREPARED = 500

/**
 * A statement whose best plan depends on its values (an organization's
 * share of the rows: a thousandth or nearly all) carries this comment and
 * is never prepared: PostgreSQL plans it for its values each time, where a
 * prepared statement's generic plan, made for the average, would walk a
 * big index to find a small organization's few rows.
 */
export const PLAN_EACH_TIME = '/* planned each time */'

/**
 * Kysely gives a connection back to the pool as healthy whatever its last query
 * did, and pg-pool keeps it unless the socket already closed. On PostgreSQL a
 * connection whose query timed out or lost its response is instead dropped and
 * its socket destroyed (a stalled one would never finish closing); the pool opens
 * a fresh one. The embedded database's single session is never dropped: a new
 * one would not know the statements it has prepared.
 */
function withPreparedStatements(
  pool: pg.Pool,
  options: { dropBroken: boolean; afterEnd?: () => Promise<void> },
): PostgresPool {
  const { dropBroken, afterEnd } = options
  const names = new Map<string, string>()
  const nameFor = (text: string): string | undefined => {
    if (text.includes(PLAN_EACH_TIME)) return undefined
    let name = names.get(text)
    if (name === undefined && names.size < MAX_PREPARED) {
      name = `k_${createHash('sha1').update(text).digest('base64url')}`
      names.set(text, name)
    }
    return name
  }
  return {
    options: pool.options,
    end: async () => {
      await pool.end()
      await afterEnd?.()
    },
    async connect() {
      const client = await pool.connect()
      const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>
      let broken = false
      const noteFailure = (err: unknown) => {
        if (dropBroken && breaksConnection(err)) broken = true
        throw err
      }
      // A checked-out client whose socket fails emits 'error' besides failing its
      // query; pg-pool only listens while the client is idle, and an unheard
      // 'error' would end the process.
      const onError = () => {
        broken = dropBroken
      }
      client.on('error', onError)
      return Object.assign(Object.create(client) as pg.PoolClient, {
        query: (text: unknown, values?: unknown[]) => {
          const name = typeof text === 'string' && values !== undefined ? nameFor(text) : undefined
          return (name ? query({ name, text, values }) : query(text, values)).catch(noteFailure)
        },
        release: (destroy?: boolean) => {
          client.off('error', onError)
          if (!broken) return client.release(destroy)
          client.release(true)
          ;(
            client as unknown as { connection?: { stream?: { destroy(): void } } }
          ).connection?.stream?.destroy()
        },
      })
    },
  } as unknown as PostgresPool
}

/** Session settings as the connection's startup options (`-c name=value ...`), or nothing. */
function sessionOptions(settings: Record<string, string>): { options?: string } {
  const pairs = Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`)
  return pairs.length > 0 ? { options: pairs.join(' ') } : {}
}

export async function openDatabase(options: DatabaseOptions): Promise<OpenedDatabase> {
  if (options.url) {
    const pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? 10,
      types: pgTypes,
      ...timeoutConfig(options.timeouts),
      ...sessionOptions({
        ...(options.schema ? { search_path: options.schema } : {}),
        ...options.settings,
      }),
    })
    // An idle client losing its connection must not crash the process; the pool
    // replaces it on the next checkout.
    pool.on('error', () => {})
    return {
      db: new Kysely<DB>({
        dialect: new PostgresDialect({ pool: withPreparedStatements(pool, { dropBroken: true }) }),
      }),
      dialect: 'postgres',
      listen: pgListen(options.url, options.timeouts),
      poolStats: poolStats(pool),
    }
  }
  return openEmbedded(options.dataDir, options.embeddedDump)
}

/**
 * The embedded PGlite, driven through node-postgres like a server: PGlite's own
 * node-postgres connection feeds pg's wire-protocol messages to the database in
 * this process. The service therefore speaks to both databases with one driver,
 * one set of type parsers and the same named prepared statements, which PGlite's
 * own query() cannot use (it parses and plans every statement again).
 *
 * PGlite is a single session: the pool holds one client for the life of the
 * process (an idle timeout would close it, and a new client would not know the
 * statements the session has already prepared), and every statement, LISTEN
 * included, goes through it. Closing the pool closes the database.
 */
async function openEmbedded(dataDir: string | undefined, dump: Blob | undefined): Promise<OpenedDatabase> {
  const { pglite, close: closeDatabase } = await openPglite(dataDir, dump)
  const pool = new pg.Pool({
    ...createPgConfig(pglite),
    max: 1,
    idleTimeoutMillis: 0,
    types: pgTypes,
  } as pg.PoolConfig)
  pool.on('error', () => {})
  const db = new Kysely<DB>({
    dialect: new PostgresDialect({
      pool: withPreparedStatements(pool, { dropBroken: false, afterEnd: closeDatabase }),
    }),
  })
  return {
    db,
    dialect: 'pglite',
    poolStats: poolStats(pool),
    dump: () => pglite.dumpDataDir('none'),
    listen: async (channel, onNotify) => {
      const off = pglite.onNotification((name, payload) => name === channel && onNotify(payload))
      await sql`listen ${sql.id(channel)}`.execute(db)
      return async () => {
        off()
        if (!pglite.closed) await sql`unlisten ${sql.id(channel)}`.execute(db).catch(() => {})
      }
    },
  }
}

/** Applies pending migrations; Kysely's lock makes concurrent starts of several instances safe. */
export async function migrateToLatest(db: Database): Promise<void> {
  // Kysely looks for its migration tables in every schema unless told which one:
  // with several schemas in one database (one per test file), another schema's
  // tables would count as ours. Pin them to the schema the migrations create into.
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db)
  const migrator = new Migrator({
    db,
    provider: migrationProvider,
    migrationTableSchema: rows[0]?.schema ?? 'public',
  })
  const { error, results } = await migrator.migrateToLatest()
  const failed = results?.find((r) => r.status === 'Error')
  if (error || failed) {
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${(error as Error)?.message ?? error}`)
  }
}
