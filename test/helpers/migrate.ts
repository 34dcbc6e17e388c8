import { sql } from 'kysely'
import { Migrator } from 'kysely/migration'
import pg from 'pg'
import type { Database } from '../../src/db/database.ts'
import { migrationProvider } from '../../src/db/migrations/index.ts'
import { SCHEMA_DROP_LOCK, TEST_DATABASE_URL } from './app.ts'

/** Migrates the test database to `target` (a migration name, or the latest). */
export async function migrate(db: Database, target: string | 'latest'): Promise<void> {
  // Migrating down drops tables, which fails another file's migrator listing
  // the tables of every schema at that moment: taken alone, like a schema drop.
  const admin = TEST_DATABASE_URL ? new pg.Client({ connectionString: TEST_DATABASE_URL }) : undefined
  await admin?.connect()
  await admin?.query('select pg_advisory_lock($1)', [SCHEMA_DROP_LOCK])
  try {
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db)
    const migrator = new Migrator({ db, provider: migrationProvider, migrationTableSchema: rows[0]!.schema })
    const { error } =
      target === 'latest' ? await migrator.migrateToLatest() : await migrator.migrateTo(target)
    if (error) throw error
  } finally {
    await admin?.end()
  }
}

/** An organization and one active live endpoint of it, written as the early schema knows them. */
export async function seedOrgWithEndpoint(db: Database, org: string, endpoint: string): Promise<void> {
  await sql`insert into organizations (id, name, created_at) values (${org}, 'Acme', now())`.execute(db)
  await sql`
    insert into webhook_endpoints
      (id, organization_id, environment, url, description, secret_encrypted, pinned_addresses, is_active, created_at)
    values (${endpoint}, ${org}, 'live', 'https://hooks.example.com/x', '', 'sealed', '{203.0.113.7}', true, now())`.execute(
    db,
  )
}
