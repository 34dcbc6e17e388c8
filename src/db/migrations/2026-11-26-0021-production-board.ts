import type { Kysely } from 'kysely'

// The operator console's production board: live production orders of one
// status, oldest first, paged on (created_at, id). Read from this index, a page
// costs the same however many orders are on the board or came before it.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('production_orders_board_idx')
    .on('production_orders')
    .columns(['status', 'created_at', 'id'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('production_orders_board_idx').execute()
}
