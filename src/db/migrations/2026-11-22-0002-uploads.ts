import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('uploads')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('organization_id', 'uuid', (c) => c.notNull().references('organizations.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('filename', 'text', (c) => c.notNull())
    // The object the bytes live in. Embedded storage writes a new object per PUT
    // and switches this key; S3 slots have a fixed key until acceptance.
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('size_bytes', 'bigint')
    .addColumn('content_type', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('url_expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('stored_at', 'timestamptz')
    // Set by the first accepted order that references the file: from then on
    // the file is permanent and its bytes can no longer be replaced.
    .addColumn('referenced_at', 'timestamptz')
    // Set by the sweeper before it deletes the bytes; the row goes after them.
    .addColumn('expired_at', 'timestamptz')
    .execute()
  await db.schema
    .createIndex('uploads_unreferenced_idx')
    .on('uploads')
    .columns(['created_at'])
    .where(sql.ref('referenced_at'), 'is', null)
    .execute()

  // Secrets the instances of one deployment share (the upload URL signing key).
  await db.schema
    .createTable('service_secrets')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('service_secrets').execute()
  await db.schema.dropTable('uploads').execute()
}
