import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { Kysely, PGliteDialect, PostgresDialect } from 'kysely'
import { Migrator } from 'kysely/migration'
import pg from 'pg'
import { migrationProvider } from './migrations/index.ts'
import type { DB } from './schema.ts'

export type Database = Kysely<DB>

export interface DatabaseOptions {
  /** postgres:// URL; without it the embedded PGlite is used. */
  url?: string | undefined
  /** Directory of the embedded database; without it PGlite lives in memory (tests). */
  dataDir?: string | undefined
  /** PostgreSQL schema to work in (tests isolate each file in its own schema). */
  schema?: string | undefined
  /** Pool size for PostgreSQL. */
  poolSize?: number
}

export interface OpenedDatabase {
  db: Database
  dialect: 'postgres' | 'pglite'
}

// COUNT(*) and other int8 results fit a JS number for every value this service sees.
const INT8_OID = 20
const pgTypes = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === INT8_OID ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text')) as never,
}

export async function openDatabase(options: DatabaseOptions): Promise<OpenedDatabase> {
  if (options.url) {
    const pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? 10,
      types: pgTypes,
      ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
    })
    // An idle client losing its connection must not crash the process; the pool
    // replaces it on the next checkout.
    pool.on('error', () => {})
    return { db: new Kysely<DB>({ dialect: new PostgresDialect({ pool }) }), dialect: 'postgres' }
  }
  let pglite: PGlite
  if (options.dataDir) {
    const dir = join(options.dataDir, 'pgdata')
    mkdirSync(dir, { recursive: true })
    pglite = await PGlite.create(dir)
  } else {
    pglite = await PGlite.create()
  }
  return { db: new Kysely<DB>({ dialect: new PGliteDialect({ pglite }) }), dialect: 'pglite' }
}

/** Applies pending migrations; Kysely's lock makes concurrent starts of several instances safe. */
export async function migrateToLatest(db: Database): Promise<void> {
  const migrator = new Migrator({ db, provider: migrationProvider })
  const { error, results } = await migrator.migrateToLatest()
  const failed = results?.find((r) => r.status === 'Error')
  if (error || failed) {
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${(error as Error)?.message ?? error}`)
  }
}
