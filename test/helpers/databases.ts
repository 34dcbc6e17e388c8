import { createHash, randomBytes } from 'node:crypto'
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import pg from 'pg'
import { migrateToLatest, openDatabase } from '../../src/db/database.ts'

/**
 * Migrated templates of the test databases, made once and copied for each test
 * database instead of running every migration again:
 * - embedded: a dump of a migrated in-memory PGlite (loading it also skips
 *   initdb, which PGlite otherwise runs at every start), and a migrated data
 *   directory for service processes started on a DATA_DIR;
 * - PostgreSQL: a migrated database that each test database is created from
 *   (`CREATE DATABASE ... TEMPLATE`).
 * Each template is named by a hash of the migrations (and PGlite's version), so
 * a changed migration makes a new one. scripts/test.ts makes them before the
 * suite starts; a file run on its own makes what is missing.
 */

const ROOT = join(import.meta.dirname, '..', '..')
const MIGRATIONS = join(ROOT, 'src', 'db', 'migrations')
const CACHE = join(ROOT, 'node_modules', '.cache', 'order-intake-tests')

function templateHash(): string {
  const hash = createHash('sha256')
  hash.update(readFileSync(join(ROOT, 'node_modules', '@electric-sql', 'pglite', 'package.json')))
  for (const file of readdirSync(MIGRATIONS).sort()) {
    hash.update(`${file}\n`)
    hash.update(readFileSync(join(MIGRATIONS, file)))
  }
  return hash.digest('hex').slice(0, 12)
}

const HASH = templateHash()

/** Writes a file or directory made in a temporary place to its final path in one step. */
function publish(made: string, path: string): void {
  mkdirSync(CACHE, { recursive: true })
  try {
    renameSync(made, path)
  } catch (err) {
    // Another process published the same template first.
    rmSync(made, { recursive: true, force: true })
    if (!existsSync(path)) throw err
  }
}

// ---- embedded (PGlite) ----

const DUMP_PATH = join(CACHE, `pglite-${HASH}.tar`)
let dump: Promise<Blob> | undefined

/** The migrated in-memory database as a PGlite dump (openDatabase's embeddedDump). */
export function pgliteTemplate(): Promise<Blob> {
  dump ??= (async () => {
    if (!existsSync(DUMP_PATH)) {
      const opened = await openDatabase({})
      try {
        await migrateToLatest(opened.db)
        // The service uses one database of the embedded server, postgres; its two
        // templates are a third of the dump, read at every load.
        await sql`update pg_database set datistemplate = false where datname in ('template0', 'template1')`.execute(
          opened.db,
        )
        await sql`drop database template0`.execute(opened.db)
        await sql`drop database template1`.execute(opened.db)
        const made = join(CACHE, `.pglite-${HASH}-${randomBytes(4).toString('hex')}.tar`)
        mkdirSync(CACHE, { recursive: true })
        await writeFile(made, Buffer.from(await (await opened.dump!()).arrayBuffer()))
        publish(made, DUMP_PATH)
      } finally {
        await opened.db.destroy()
      }
    }
    return new Blob([readFileSync(DUMP_PATH)])
  })()
  return dump
}

const DATA_DIR_PATH = join(CACHE, `data-dir-${HASH}`)
let dataDir: Promise<string> | undefined

/** A DATA_DIR whose embedded database is migrated (made once), to copy for service processes. */
export function dataDirTemplate(): Promise<string> {
  dataDir ??= (async () => {
    if (!existsSync(DATA_DIR_PATH)) {
      const made = mkdtempSync(join(tmpdir(), 'svc-template-'))
      const { db } = await openDatabase({ dataDir: made })
      try {
        await migrateToLatest(db)
      } finally {
        await db.destroy()
      }
      publish(made, DATA_DIR_PATH)
    }
    return DATA_DIR_PATH
  })()
  return dataDir
}

/**
 * A fresh DATA_DIR whose embedded database is already migrated (a copy of the
 * template's pgdata), for service processes; the caller removes it.
 */
export async function seededDataDir(prefix = 'svc-data-'): Promise<string> {
  const template = await dataDirTemplate()
  const dir = mkdtempSync(join(tmpdir(), prefix))
  cpSync(join(template, 'pgdata'), join(dir, 'pgdata'), { recursive: true })
  return dir
}

// ---- PostgreSQL ----

/** Serializes making the PostgreSQL template among concurrent test files. */
const TEMPLATE_LOCK = 7_104_816_264
const TEMPLATE = `oit_template_${HASH}`
/**
 * A template's comment once its migrations have all run (`migrated <unix
 * seconds>`): one without it is unfinished and made again. Templates of other
 * migrations are dropped a day after they were made, not at once: a run in
 * another checkout, with other migrations, may be copying them.
 */
const READY = /^migrated(?: (\d+))?$/
/**
 * Test databases are named oit_<unix seconds>_[<run>_]<random>: the age lets a
 * later run drop leftovers, the run (TEST_RUN, set by scripts/test.ts) lets the
 * run that made them drop them after its pass.
 */
const TEST_DATABASE = /^oit_(\d+)_(?:[0-9a-f]+_)?[0-9a-f]+$/
const RUN =
  process.env.TEST_RUN && /^[0-9a-f]+$/.test(process.env.TEST_RUN) ? process.env.TEST_RUN : undefined

function withDatabase(url: string, name: string): string {
  const u = new URL(url)
  u.pathname = `/${name}`
  return u.toString()
}

async function adminClient(serverUrl: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: serverUrl })
  await client.connect()
  return client
}

const templates = new Map<string, Promise<string>>()

/**
 * The migrated template database on the server of serverUrl, made if missing
 * (templates of other migrations are dropped then); resolves to its name.
 */
export function pgTemplate(serverUrl: string): Promise<string> {
  let made = templates.get(serverUrl)
  if (!made) {
    made = makePgTemplate(serverUrl)
    templates.set(serverUrl, made)
  }
  return made
}

async function makePgTemplate(serverUrl: string): Promise<string> {
  const admin = await adminClient(serverUrl)
  try {
    await admin.query('select pg_advisory_lock($1)', [TEMPLATE_LOCK])
    const { rows } = await admin.query<{ comment: string | null }>(
      `select shobj_description(oid, 'pg_database') as comment from pg_database where datname = $1`,
      [TEMPLATE],
    )
    if (READY.test(rows[0]?.comment ?? '')) return TEMPLATE
    if (rows.length > 0) await admin.query(`drop database ${TEMPLATE} with (force)`)
    const old = await admin.query<{ datname: string; comment: string | null }>(
      `select datname, shobj_description(oid, 'pg_database') as comment from pg_database
       where datname like 'oit\\_template\\_%' and datname <> $1`,
      [TEMPLATE],
    )
    const dayAgo = Date.now() / 1000 - 86_400
    for (const { datname, comment } of old.rows) {
      const made = Number(READY.exec(comment ?? '')?.[1] ?? 0)
      if (made < dayAgo) await admin.query(`drop database ${pg.escapeIdentifier(datname)} with (force)`)
    }
    await admin.query(`create database ${TEMPLATE}`)
    const { db } = await openDatabase({ url: withDatabase(serverUrl, TEMPLATE), poolSize: 1 })
    try {
      await migrateToLatest(db)
    } finally {
      await db.destroy()
    }
    await admin.query(`comment on database ${TEMPLATE} is 'migrated ${Math.floor(Date.now() / 1000)}'`)
    return TEMPLATE
  } finally {
    await admin.end()
  }
}

export interface PgDatabase {
  name: string
  url: string
  /** Drops it now: for benches. Tests leave their databases to the runner. */
  drop(): Promise<void>
}

/**
 * A new database on the server of serverUrl: a copy of the migrated template,
 * or empty (`migrated: false`) for tests of the migrations themselves.
 *
 * Tests do not drop their databases: on PostgreSQL 15 every DROP DATABASE
 * waits for a checkpoint, which on a busy disk made closing a test's app the
 * slowest thing it did. scripts/test.ts drops the run's databases after the
 * pass, many at once, so their checkpoints are shared.
 */
export async function createPgDatabase(
  serverUrl: string,
  options: { migrated?: boolean } = {},
): Promise<PgDatabase> {
  const template = options.migrated === false ? 'template0' : await pgTemplate(serverUrl)
  const name = `oit_${Math.floor(Date.now() / 1000)}_${RUN ? `${RUN}_` : ''}${randomBytes(5).toString('hex')}`
  const admin = await adminClient(serverUrl)
  try {
    await admin.query(`create database ${name} template ${template}`)
  } finally {
    await admin.end()
  }
  return {
    name,
    url: withDatabase(serverUrl, name),
    async drop() {
      const client = await adminClient(serverUrl)
      try {
        await client.query(`drop database if exists ${name} with (force)`)
      } finally {
        await client.end()
      }
    },
  }
}

/** Drops the databases of one run of the suite (TEST_RUN), 8 at a time so that their checkpoints are shared. */
export async function dropRunPgDatabases(serverUrl: string, run: string): Promise<number> {
  const admin = await adminClient(serverUrl)
  let names: string[]
  try {
    const { rows } = await admin.query<{ datname: string }>(
      `select datname from pg_database where datname like $1`,
      [`oit\\_%\\_${run}\\_%`],
    )
    names = rows.map((r) => r.datname).filter((name) => TEST_DATABASE.test(name))
  } finally {
    await admin.end()
  }
  const queue = [...names]
  await Promise.all(
    Array.from({ length: Math.min(8, queue.length) }, async () => {
      const client = await adminClient(serverUrl)
      try {
        for (let name = queue.pop(); name; name = queue.pop())
          await client.query(`drop database if exists ${pg.escapeIdentifier(name)} with (force)`)
      } finally {
        await client.end()
      }
    }),
  )
  return names.length
}

/** Drops the test databases that runs which were killed left behind (older than a day). */
export async function dropLeftoverPgDatabases(serverUrl: string): Promise<void> {
  const admin = await adminClient(serverUrl)
  try {
    const { rows } = await admin.query<{ datname: string }>(
      `select datname from pg_database where datname like 'oit\\_%'`,
    )
    const dayAgo = Date.now() / 1000 - 86_400
    for (const { datname } of rows) {
      const made = TEST_DATABASE.exec(datname)
      if (made && Number(made[1]) < dayAgo)
        await admin.query(`drop database if exists ${datname} with (force)`)
    }
  } finally {
    await admin.end()
  }
}
