import { type Kysely, sql } from 'kysely'

/**
 * A product's print specifications (docs/preflight.md): what its production
 * files must be to print well, one spec for every file or one per file role.
 * Null: none set.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table products add column print_spec jsonb`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table products drop column print_spec`.execute(db)
}
