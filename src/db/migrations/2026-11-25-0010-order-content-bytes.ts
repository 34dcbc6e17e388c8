import { type Kysely, sql } from 'kysely'

// Each order records the size of its items' JSON document, so that a page of
// the order lists can end before it passes a byte budget without loading the
// items first. Existing orders get the size of their items as stored.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('orders')
    .addColumn('content_bytes', 'integer', (c) => c.notNull().defaultTo(0))
    .execute()
  await sql`
    update orders o set content_bytes = s.bytes
    from (
      select order_id, sum(octet_length(row_to_json(i)::text))::int as bytes
      from order_items i
      group by order_id
    ) s
    where s.order_id = o.id`.execute(db)
  await db.schema
    .alterTable('orders')
    .alterColumn('content_bytes', (c) => c.dropDefault())
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('orders').dropColumn('content_bytes').execute()
}
