import { type Kysely, sql } from 'kysely'

/** Rows per (organization, day, status): concurrent orders of one organization spread over them. */
export const STATS_SLOTS = 8

/**
 * Live orders counted per organization, UTC day of creation, status and slot
 * (orders, item lines, quantity), kept by the statements that create an order
 * and change its status, so the dashboard's statistics read a few hundred rows
 * instead of counting every order (docs/decisions/2026-11-26-order-daily-stats.md).
 * Test orders are never counted. Also: the indexes of the dashboard's order list
 * (newest first, prefix search) and of the failing deliveries on its home.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table order_daily_stats (
      organization_id uuid not null references organizations (id),
      day date not null,
      status text not null,
      slot smallint not null,
      orders integer not null,
      items integer not null,
      quantity bigint not null,
      primary key (organization_id, day, status, slot)
    )`.execute(db)
  await backfillOrderDailyStats(db)

  await sql`create index orders_created_idx on orders (organization_id, environment, created_at, id)`.execute(
    db,
  )
  for (const column of ['external_order_id', 'customer_email', 'customer_name']) {
    await sql`create index ${sql.raw(`orders_search_${column}_idx`)}
      on orders (organization_id, environment, lower(${sql.ref(column)}) text_pattern_ops)`.execute(db)
  }
  // Home's failed deliveries of the last 24 hours, found from their failed
  // attempts: an index on the deliveries' status or last attempt would make
  // every result a non-HOT update of the log (the worker's hot path).
  await sql`create index webhook_attempts_failed_idx on webhook_attempts (started_at)
    where error_code is not null`.execute(db)
}

/** Counts every live order into order_daily_stats (added to what is there). */
export async function backfillOrderDailyStats(db: Kysely<any>): Promise<void> {
  await sql`
    insert into order_daily_stats (organization_id, day, status, slot, orders, items, quantity)
    select o.organization_id, (o.created_at at time zone 'UTC')::date, o.status,
      get_byte(uuid_send(o.id), 15) % ${sql.lit(STATS_SLOTS)},
      count(*), coalesce(sum(i.items), 0), coalesce(sum(i.quantity), 0)
    from orders o
    left join (
      select order_id, count(*) as items, sum(quantity) as quantity from order_items group by order_id
    ) i on i.order_id = o.id
    where o.environment = 'live'
    group by 1, 2, 3, 4
    on conflict (organization_id, day, status, slot) do update set
      orders = order_daily_stats.orders + excluded.orders,
      items = order_daily_stats.items + excluded.items,
      quantity = order_daily_stats.quantity + excluded.quantity`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index webhook_attempts_failed_idx`.execute(db)
  for (const column of ['external_order_id', 'customer_email', 'customer_name']) {
    await sql`drop index ${sql.raw(`orders_search_${column}_idx`)}`.execute(db)
  }
  await sql`drop index orders_created_idx`.execute(db)
  await sql`drop table order_daily_stats`.execute(db)
}
