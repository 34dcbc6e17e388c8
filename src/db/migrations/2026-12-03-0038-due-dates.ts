import { type Kysely, sql } from 'kysely'

/**
 * Due dates (docs/production.md): a product's lead time in working days, the
 * platform's calendar (its time zone, working weekdays, closed days and the
 * lead time of items without one), and each production order's due date,
 * which the board sorts by.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table products add column lead_time_days smallint
    check (lead_time_days between 0 and 90)`.execute(db)
  // One row: the platform's calendar.
  await sql`
    create table production_calendar (
      id boolean primary key default true check (id),
      time_zone text not null default 'UTC',
      working_weekdays smallint[] not null default '{1,2,3,4,5}',
      default_lead_time_days smallint not null default 3 check (default_lead_time_days between 0 and 90),
      updated_at timestamptz not null default now()
    )`.execute(db)
  await sql`insert into production_calendar default values`.execute(db)
  await sql`create table closed_days (day date primary key, note text not null default '')`.execute(db)
  /*
   * The working day `lead_days` working days after the day an order was
   * placed, in the calendar's time zone; an order placed on a closed day
   * counts from the next working day (lead time 0: that day). Each closed
   * day ahead moves it by at most a week, so the series below always holds it.
   */
  await sql`
    create function production_due_on(ordered_at timestamptz, lead_days integer) returns date
    language sql stable as $$
      select g.day
      from production_calendar c
      cross join lateral (select (ordered_at at time zone c.time_zone)::date as first) s
      cross join lateral (
        select d::date as day
        from generate_series(
          s.first,
          s.first + (greatest(lead_days, 0) + 1 + (select count(*)::int from closed_days x where x.day >= s.first)) * 7,
          interval '1 day') d
      ) g
      where extract(isodow from g.day)::int = any(c.working_weekdays)
        and not exists (select 1 from closed_days x where x.day = g.day)
      order by g.day
      offset greatest(lead_days, 0)
      limit 1
    $$`.execute(db)
  await sql`alter table production_orders add column due_on date`.execute(db)
  // The board: each status by due date (none yet: last), then arrival; rush orders apart.
  await sql`create index production_orders_due_idx
    on production_orders (status, (coalesce(due_on, 'infinity'::date)), created_at, id)`.execute(db)
  await sql`create index production_orders_rush_due_idx
    on production_orders (status, (coalesce(due_on, 'infinity'::date)), created_at, id)
    where priority = 'rush'`.execute(db)
  await sql`drop index production_orders_rush_idx`.execute(db)
  // Open production orders get theirs now; the order fold sets them for new orders.
  await sql`
    update production_orders p set due_on = production_due_on(o.ordered_at, (
      select coalesce(max(coalesce(pr.lead_time_days, c.default_lead_time_days)), c.default_lead_time_days)
      from production_calendar c
      left join order_items i on i.order_id = o.id
      left join products pr on pr.id = i.product_id
      group by c.default_lead_time_days))
    from orders o
    where o.id = p.order_id and p.status in ('pending', 'in_progress')`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`create index production_orders_rush_idx on production_orders (created_at, id) where priority = 'rush'`.execute(
    db,
  )
  await sql`drop index production_orders_rush_due_idx`.execute(db)
  await sql`drop index production_orders_due_idx`.execute(db)
  await sql`alter table production_orders drop column due_on`.execute(db)
  await sql`drop function production_due_on(timestamptz, integer)`.execute(db)
  await sql`drop table closed_days`.execute(db)
  await sql`drop table production_calendar`.execute(db)
  await sql`alter table products drop column lead_time_days`.execute(db)
}
