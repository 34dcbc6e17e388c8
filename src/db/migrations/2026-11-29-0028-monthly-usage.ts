import { type Kysely, sql } from 'kysely'

/**
 * Usage counted for billing (docs/decisions/2026-11-29-usage-for-billing.md):
 * live orders per organization and calendar month (UTC) of creation, with
 * their item lines and quantity, and the same per linked product. Folded in
 * from order_changes off the order path (orders/changes/changes.repo.ts): only an
 * order's creation counts, so a cancelled order stays counted in its month;
 * test orders never count. The orders stored before this migration are
 * counted here, except those whose creation is still waiting in
 * order_changes (the next fold counts them).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table monthly_usage (
      organization_id uuid not null,
      month date not null,
      orders integer not null,
      items integer not null,
      quantity bigint not null,
      primary key (month, organization_id)
    )`.execute(db)
  await sql`
    create table monthly_product_usage (
      organization_id uuid not null,
      month date not null,
      product_id uuid not null,
      orders integer not null,
      items integer not null,
      quantity bigint not null,
      primary key (month, organization_id, product_id)
    )`.execute(db)
  await backfillMonthlyUsage(db)
}

/**
 * Counts every live order stored into the monthly usage (added to what is
 * there), except those whose creation still waits in order_changes.
 */
export async function backfillMonthlyUsage(db: Kysely<any>): Promise<void> {
  // No fold runs meanwhile: it would count the orders it takes a second time.
  await sql`select pg_advisory_xact_lock(hashtextextended('order_changes', 0))`.execute(db)
  await sql`
    insert into monthly_usage (organization_id, month, orders, items, quantity)
    select o.organization_id, date_trunc('month', o.created_at at time zone 'UTC')::date,
      count(*), coalesce(sum(i.items), 0), coalesce(sum(i.quantity), 0)
    from orders o
    left join (
      select order_id, count(*) as items, sum(quantity) as quantity from order_items group by order_id
    ) i on i.order_id = o.id
    where o.environment = 'live'
      and not exists (select 1 from order_changes c where c.order_id = o.id and c.created)
    group by 1, 2
    on conflict (month, organization_id) do update set
      orders = monthly_usage.orders + excluded.orders,
      items = monthly_usage.items + excluded.items,
      quantity = monthly_usage.quantity + excluded.quantity`.execute(db)
  await sql`
    insert into monthly_product_usage (organization_id, month, product_id, orders, items, quantity)
    select o.organization_id, date_trunc('month', o.created_at at time zone 'UTC')::date, i.product_id,
      count(distinct o.id), count(*), sum(i.quantity)
    from orders o
    join order_items i on i.order_id = o.id
    where o.environment = 'live' and i.product_id is not null
      and not exists (select 1 from order_changes c where c.order_id = o.id and c.created)
    group by 1, 2, 3
    on conflict (month, organization_id, product_id) do update set
      orders = monthly_product_usage.orders + excluded.orders,
      items = monthly_product_usage.items + excluded.items,
      quantity = monthly_product_usage.quantity + excluded.quantity`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table monthly_product_usage`.execute(db)
  await sql`drop table monthly_usage`.execute(db)
}
