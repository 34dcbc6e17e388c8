/** What the seed needs of a connection: a pg.Client, or a statement runner on the embedded database. */
export interface SqlClient {
  query(text: string, values?: unknown[]): Promise<unknown>
}

/**
 * The day and lead time (1 to 5 working days) of every order the seed can
 * place, dated by production_due_on (migration 0038) against the platform's
 * calendar: a due date depends only on the day in the calendar's time zone
 * and the lead time, so the seed joins this table instead of calling the
 * function once per production order.
 */
async function dueDates(db: SqlClient) {
  await db.query(`create temp table if not exists bench_due as
    select (d at time zone c.time_zone)::date as day, lead, production_due_on(d, lead) as due_on
    from production_calendar c,
      generate_series(now() - interval '92 days', now() + interval '1 day', interval '1 day') as d,
      generate_series(1, 5) as lead`)
}

/**
 * Orders of one organization in chunks, each chunk one statement: ids, days,
 * statuses and items from generate_series, spread over the last 90 days;
 * mixed statuses, 5% test orders, 1 to 3 items each. Each live order gets its
 * production order in the status its order's follows from (in production is
 * in_progress), due its lead time (1 to 5 working days) after it was
 * placed, and a job per item (an order in progress has its first item's job
 * completed): 10% partner-produced, 8% rush, 5% of the pending ones held by
 * a rule. The production orders are dated from the bytes of their order's
 * random id, so every chunk mixes them alike.
 */
export async function seedOrders(db: SqlClient, orgId: string, count: number, label = 'orders') {
  await dueDates(db)
  const holdingRule = crypto.randomUUID()
  const CHUNK = 100_000
  for (let start = 0; start < count; start += CHUNK) {
    const end = Math.min(count, start + CHUNK) - 1
    await db.query(
      `with new_orders as (
        insert into orders (id, organization_id, environment, source, external_order_id, status, currency,
          total_amount, customer_name, customer_email, customer_phone, ordered_at, created_at, updated_at,
          content_hash, content_bytes)
        select gen_random_uuid(), $1::uuid, case when n % 20 = 0 then 'test' else 'live' end, 'api',
          'ORD-' || lpad(n::text, 8, '0'),
          (array['pending', 'in_production', 'completed', 'completed', 'completed', 'failed', 'cancelled'])[1 + n % 7],
          'EUR', 19.90 + n % 50, 'Customer ' || (n % 50000), 'customer' || (n % 50000) || '@example.com', null,
          t, t, t, md5(n::text), 120
        from generate_series($2::int, $3::int) as n,
          -- scattered over the last 90 days (129600 minutes)
          lateral (select now() - ((n::bigint * 7919) % 129600) * interval '1 minute' as t) as at
        returning id, organization_id, environment, status, ordered_at
      ),
      new_items as (
        insert into order_items (id, order_id, organization_id, position, sku, name, quantity, price,
          personalization, files)
        select gen_random_uuid(), o.id, o.organization_id, p, 'SKU-' || (p + 1), 'Mug ' || (p + 1), 1 + p, 12.5,
          '{"text": "Hello"}'::json, '[]'::json
        from new_orders o, lateral generate_series(0, (get_byte(uuid_send(o.id), 3) % 3)) as p
        returning id, order_id, position
      ),
      new_production as (
        insert into production_orders (id, order_id, status, produced_by_partner, priority, held_at, hold,
          due_on, created_at, updated_at)
        select gen_random_uuid(), o.id, s.status, get_byte(uuid_send(o.id), 4) % 10 = 3,
          case when get_byte(uuid_send(o.id), 5) < 20 then 'rush' else 'normal' end,
          case when h.held then o.ordered_at end,
          case when h.held then jsonb_build_object('rule_id', $4::uuid, 'name', 'Large quantity',
            'reason', 'Quantity over 2: check the stock first') end,
          d.due_on, o.ordered_at, o.ordered_at
        from new_orders o
        cross join production_calendar c
        cross join lateral (select case o.status when 'in_production' then 'in_progress' else o.status end
          as status) s
        cross join lateral (select s.status = 'pending' and get_byte(uuid_send(o.id), 10) < 13 as held) h
        join bench_due d on d.day = (o.ordered_at at time zone c.time_zone)::date
          and d.lead = 1 + get_byte(uuid_send(o.id), 11) % 5
        where o.environment = 'live'
        returning id, order_id, status, created_at
      )
      insert into production_jobs (id, production_order_id, order_item_id, status, created_at, updated_at)
      select gen_random_uuid(), p.id, i.id,
        case when p.status = 'in_progress' and i.position = 0 then 'completed' else p.status end,
        p.created_at, p.created_at
      from new_production p join new_items i on i.order_id = p.order_id`,
      [orgId, start, end, holdingRule],
    )
    process.stdout.write(`\rseeded ${end + 1} ${label}`)
  }
  process.stdout.write('\n')
}
