import { type Kysely, sql } from 'kysely'

// Migrations take Kysely<any> and never import application code: they must keep
// working unchanged however the application's types move on.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('organizations')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('organization_id', 'uuid', (c) => c.notNull().references('organizations.id'))
    .addColumn('environment', 'text', (c) => c.notNull().check(sql`environment in ('test', 'live')`))
    .addColumn('scopes', sql`text[]`, (c) => c.notNull())
    .addColumn('key_prefix', 'text', (c) => c.notNull())
    // SHA-256 of the whole key, hex. The plaintext is never stored.
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text')
    .addColumn('expires_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('api_keys_organization_idx')
    .on('api_keys')
    .columns(['organization_id'])
    .execute()

  await db.schema
    .createTable('products')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('organization_id', 'uuid', (c) => c.notNull().references('organizations.id'))
    .addColumn('sku', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addUniqueConstraint('products_organization_sku_key', ['organization_id', 'sku'])
    .execute()

  await db.schema
    .createTable('orders')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('organization_id', 'uuid', (c) => c.notNull().references('organizations.id'))
    .addColumn('environment', 'text', (c) => c.notNull().check(sql`environment in ('test', 'live')`))
    .addColumn('source', 'text', (c) => c.notNull().check(sql`source in ('api', 'shop')`))
    .addColumn('external_order_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('currency', 'text')
    .addColumn('total_amount', 'numeric')
    .addColumn('customer_name', 'text', (c) => c.notNull())
    .addColumn('customer_email', 'text')
    .addColumn('customer_phone', 'text')
    .addColumn('ordered_at', 'timestamptz', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    // SHA-256 of the canonical request body: the duplicate-protection fingerprint.
    .addColumn('content_hash', 'text', (c) => c.notNull())
    .addUniqueConstraint('orders_external_id_key', ['organization_id', 'environment', 'external_order_id'])
    .execute()
  // Keyset paging for polling: (updated_at, id) inside one organization and environment.
  await db.schema
    .createIndex('orders_polling_idx')
    .on('orders')
    .columns(['organization_id', 'environment', 'updated_at', 'id'])
    .execute()
  // The operator's newest-first list (UUIDv7 ids are time-ordered).
  await db.schema
    .createIndex('orders_organization_id_idx')
    .on('orders')
    .columns(['organization_id', 'id'])
    .execute()

  await db.schema
    .createTable('order_items')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('order_id', 'uuid', (c) => c.notNull().references('orders.id'))
    .addColumn('organization_id', 'uuid', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('sku', 'text')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .addColumn('price', 'numeric')
    .addColumn('product_id', 'uuid', (c) => c.references('products.id'))
    // json (not jsonb) keeps the client's key order in responses.
    .addColumn('personalization', 'json', (c) => c.notNull())
    .addColumn('files', 'json', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('order_items_order_idx')
    .on('order_items')
    .columns(['order_id', 'position'])
    .execute()
  // Retroactive product linking looks up unlinked items of one organization by sku.
  await db.schema
    .createIndex('order_items_unlinked_sku_idx')
    .on('order_items')
    .columns(['organization_id', 'sku'])
    .where(sql.ref('product_id'), 'is', null)
    .execute()

  await db.schema
    .createTable('production_orders')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('order_id', 'uuid', (c) => c.notNull().unique().references('orders.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('produced_by_partner', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('production_jobs')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('production_order_id', 'uuid', (c) => c.notNull().references('production_orders.id'))
    .addColumn('order_item_id', 'uuid', (c) => c.notNull().unique().references('order_items.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('production_jobs_production_order_idx')
    .on('production_jobs')
    .columns(['production_order_id'])
    .execute()

  // The outbox: an event row is written in the same transaction as the change that
  // causes it; delivery reads from here and never from request handlers.
  await db.schema
    .createTable('events')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('organization_id', 'uuid', (c) => c.notNull().references('organizations.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('order_id', 'uuid')
    .addColumn('data', 'json', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('events_order_idx').on('events').columns(['order_id']).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'events',
    'production_jobs',
    'production_orders',
    'order_items',
    'orders',
    'products',
    'api_keys',
    'organizations',
  ]) {
    await db.schema.dropTable(table).execute()
  }
}
