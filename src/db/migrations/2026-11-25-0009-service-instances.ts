import type { Kysely } from 'kysely'

// Instances on one PostgreSQL announce where they keep uploaded files, so that
// a start with a different store (another DATA_DIR, another bucket) is refused
// instead of failing half the orders with file_not_found. Rows are kept fresh
// by a heartbeat written with the database's clock.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('service_instances')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('file_store', 'text', (c) => c.notNull())
    .addColumn('file_store_description', 'text', (c) => c.notNull())
    .addColumn('hostname', 'text', (c) => c.notNull())
    .addColumn('pid', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'timestamptz', (c) => c.notNull())
    .addColumn('heartbeat_at', 'timestamptz', (c) => c.notNull())
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('service_instances').execute()
}
