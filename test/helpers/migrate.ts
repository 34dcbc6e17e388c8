import { sql } from 'kysely'
import { Migrator } from 'kysely/migration'
import type { Database } from '../../src/db/database.ts'
import { migrationProvider } from '../../src/db/migrations/index.ts'

/** Migrates the test database to `target` (a migration name, or the latest). */
export async function migrate(db: Database, target: string | 'latest'): Promise<void> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db)
  const migrator = new Migrator({ db, provider: migrationProvider, migrationTableSchema: rows[0]!.schema })
  const { error } = target === 'latest' ? await migrator.migrateToLatest() : await migrator.migrateTo(target)
  if (error) throw error
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
