import { type Kysely, sql } from 'kysely'

// Each endpoint receives the event types it lists in enabled_events, or every
// type with '*'; existing endpoints keep receiving everything. Each order
// counts the events recorded for it in order_event_counters, so an event's
// data can carry its per-order sequence, assigned by the statement that writes
// the event. Existing order events get theirs here, numbered in the order they
// were recorded, appended as the last field of data and of the body's data
// (both end with the data object's closing brace, the body with one more), and
// each order's counter continues from its number of events.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('webhook_endpoints')
    .addColumn('enabled_events', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{*}'::text[]`))
    .execute()
  await db.schema
    .createTable('order_event_counters')
    .addColumn('order_id', 'uuid', (c) => c.primaryKey().references('orders.id'))
    .addColumn('last_sequence', 'integer', (c) => c.notNull())
    .execute()
  await sql`
    with numbered as (
      select id, row_number() over (partition by order_id order by created_at, id) as n
      from events
      where order_id is not null
    )
    update events e
    set data = (left(e.data::text, -1) || case when e.data::text = '{}' then '' else ',' end
                || '"sequence":' || numbered.n || '}')::json,
        body = left(e.body, -2) || case when e.data::text = '{}' then '' else ',' end
                || '"sequence":' || numbered.n || '}}'
    from numbered
    where numbered.id = e.id`.execute(db)
  await sql`
    insert into order_event_counters (order_id, last_sequence)
    select e.order_id, count(*)::int from events e
    join orders o on o.id = e.order_id
    group by e.order_id`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('order_event_counters').execute()
  await db.schema.alterTable('webhook_endpoints').dropColumn('enabled_events').execute()
}
