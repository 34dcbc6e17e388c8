import { CompiledQuery, sql } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Environment, OrderRow } from '../../db/schema.ts'
import type { OrderScope } from './orders.repo.ts'
import { ORDER_OVERHEAD_BYTES } from './page-budget.ts'

const NIL_UUID = '00000000-0000-0000-0000-000000000000'

/** The order lists: the integrators' polling order, an organization's orders, the dashboard's newest first. */
export interface PollingPage {
  scope: OrderScope
  updatedSince: Date | undefined
  after: { at: Date; id: string } | undefined
  limit: number
  /** Bytes of items the page may carry (page-budget.ts). */
  budgetBytes: number
}

// The pieces of an answer as the response serializer (fast-json-stringify)
// writes them; docs/decisions/2026-12-02-pages-written-by-the-database.md
// says why each is the same bytes.

/** An instant as Date.toISOString() writes the Date node-postgres reads: UTC, milliseconds cut, Z. */
const iso = (t: string) => `to_char(${t} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
/** A text as JSON.stringify writes it (escape_json escapes the same characters), or null. */
const text = (t: string) => `coalesce(to_json(${t})::text, 'null')`
/**
 * A numeric as JavaScript writes the Number it parses to: the shortest digits
 * that read back as that double (float8's output), plainly from 1e-6 to 1e21
 * and with an exponent without leading zeros outside.
 */
const num = (n: string) =>
  `case when ${n} is null then 'null'
    when abs(${n}) >= 1e21 or abs(${n}) < 1e-6 then regexp_replace(${n}::float8::text, 'e([-+])0', 'e\\1')
    else ${n}::float8::text::numeric::text end`

/**
 * An item's files: each upload's name (null if there is none) and the role, in
 * the item's order; the name is looked up per file by the uploads' key.
 */
const FILE_NAME = "(select u.filename from uploads u where u.id = (f.ref ->> 'upload_id')::uuid)"
const FILES = `case when i.files::text = '[]' then '[]' else (
    select '[' || string_agg('{"name":' || ${text(FILE_NAME)} || ',"role":' || ${text("f.ref ->> 'role'")} || '}',
      ',' order by f.n) || ']'
    from json_array_elements(i.files) with ordinality as f (ref, n)
  ) end`

/** An order's items in position order, each with its production job's status. */
const ITEMS = `(
    select string_agg('{"id":"' || i.id || '","sku":' || ${text('i.sku')} || ',"name":' || to_json(i.name)::text
      || ',"quantity":' || i.quantity || ',"price":' || ${num('i.price')}
      || ',"product_linked":' || (i.product_id is not null) || ',"production_status":' || ${text('j.status')}
      || ',"personalization":' || i.personalization::text || ',"files":' || ${FILES} || '}', ',' order by i.position)
    from order_items i
    left join lateral (select status from production_jobs where order_item_id = i.id limit 1) j on true
    where i.order_id = o.id
  )`

/** One order's JSON, of the row `o` (the bench's bare page writes its orders with it too). */
export const ORDER_JSON = `'{"id":"' || o.id || '","external_order_id":' || to_json(o.external_order_id)::text
    || ',"order_number":' || to_json(o.external_order_id)::text || ',"status":' || to_json(o.status)::text
    || ',"is_test":' || (o.environment = 'test') || ',"currency":' || ${text('o.currency')}
    || ',"total_amount":' || ${num('o.total_amount')} || ',"ordered_at":"' || ${iso('o.ordered_at')}
    || '","created_at":"' || ${iso('o.created_at')} || '","updated_at":"' || ${iso('o.updated_at')}
    || '","customer":{"name":' || to_json(o.customer_name)::text || ',"email":' || ${text('o.customer_email')}
    || ',"phone":' || ${text('o.customer_phone')} || '},"items":[' || coalesce(${ITEMS}, '') || ']}'`

/** ORDER_CURSOR's encoding (base64url of "<updated_at>|<id>", no padding) of a shown row. */
const CURSOR = (o: string) =>
  `'"' || translate(encode(convert_to(${iso(`${o}.updated_at`)} || '|' || ${o}.id, 'UTF8'), 'base64'), E'+/=\\n', '-_') || '"'`

/**
 * The polling page's whole answer, `{"data":[...],"next_cursor":...}`, written
 * by the database in the bytes the response serializer wrote for the same
 * orders. The orders, (updated_at, id) ascending, are read with a keyset
 * condition on the polling index, one more than the limit to know whether a
 * next page exists; the page is cut to the limit and the byte budget as
 * withinBudget cuts it (the first order always, then while the running total
 * of content_bytes + 512 stays within the budget). Parameters: organization,
 * environment, updated_since, the cursor's instant and id (nulls when absent),
 * limit, budget.
 */
export const POLLING_PAGE = `
with fetched as (
  select o.*, row_number() over w as n, sum(o.content_bytes + ${ORDER_OVERHEAD_BYTES}) over w as bytes
  from (
    select id, environment, external_order_id, status, currency, total_amount, customer_name, customer_email,
      customer_phone, ordered_at, created_at, updated_at, content_bytes
    from orders
    where organization_id = $1::uuid and environment = $2::text
      and updated_at >= coalesce($3::timestamptz, '-infinity')
      and (updated_at, id) > (coalesce($4::timestamptz, '-infinity'), coalesce($5::uuid, '${NIL_UUID}'))
    order by updated_at, id
    limit $6::int + 1
  ) o
  window w as (order by o.updated_at, o.id rows between unbounded preceding and current row)
), shown as (
  select * from fetched where n <= $6::int and (n = 1 or bytes <= $7::bigint)
)
select '{"data":[' || coalesce((select string_agg(${ORDER_JSON}, ',' order by o.n) from shown o), '')
  || '],"next_cursor":' || coalesce((
    select ${CURSOR('s')} from shown s
    where s.n = (select max(n) from shown) and exists (select 1 from fetched f where f.n > s.n)
  ), 'null') || '}' as body`

/** The statement of one polling page and its parameters, in POLLING_PAGE's order. */
export function pollingPageQuery(page: PollingPage): CompiledQuery<{ body: string }> {
  return CompiledQuery.raw(POLLING_PAGE, [
    page.scope.organizationId,
    page.scope.environment,
    page.updatedSince ?? null,
    page.after?.at ?? null,
    page.after?.id ?? null,
    page.limit,
    page.budgetBytes,
  ]) as CompiledQuery<{ body: string }>
}

/**
 * One page of the polling order as the answer's JSON text, ready to send: one
 * statement, whose cost does not depend on how many orders come before it.
 */
export async function findOrdersPageBody(db: Database, page: PollingPage): Promise<string> {
  const { rows } = await db.executeQuery(pollingPageQuery(page))
  return rows[0]!.body
}

/** The operator's list: newest first (ids are time-ordered), optionally one environment. */
export async function findOrganizationOrdersPage(
  db: Database,
  page: {
    organizationId: string
    environment: Environment | undefined
    beforeId: string | undefined
    limit: number
  },
): Promise<OrderRow[]> {
  let query = db.selectFrom('orders').selectAll().where('organization_id', '=', page.organizationId)
  if (page.environment) query = query.where('environment', '=', page.environment)
  if (page.beforeId) query = query.where('id', '<', page.beforeId)
  return query
    .orderBy('id', 'desc')
    .limit(page.limit + 1)
    .execute()
}

export interface NewestPage {
  scope: OrderScope
  status: string | undefined
  /** created_at >= from */
  from: Date | undefined
  /** created_at < until */
  until: Date | undefined
  /** A prefix of the external order id, the customer's email or name (any case). */
  search: string | undefined
  /** The last row of the previous page: (created_at, id). */
  before: { createdAt: Date; id: string } | undefined
  /** What automation rules did: held for review, rush, partner-produced, a tag. */
  held?: boolean | undefined
  priority?: 'rush' | 'normal' | undefined
  partner?: boolean | undefined
  tag?: string | undefined
  /** Only orders whose files' print check found problems (or warnings, not problems). */
  preflight?: 'problem' | 'warning' | undefined
  limit: number
}

const likePrefix = (text: string) => `${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/**
 * The dashboard's list: newest first by (created_at, id) with a keyset
 * condition, so a page costs the same at any depth and orders arriving
 * meanwhile only ever appear above the first page. The search is a prefix
 * match on lower(column), each read from an index of migration 0017.
 */
export async function findNewestOrdersPage(db: Database, page: NewestPage): Promise<OrderRow[]> {
  return newestOrdersPageQuery(db, page).execute()
}

/**
 * The automation filters read the partial indexes of migration 0029: a tag
 * through orders_tags_idx (the condition tags <> '{}' lets the planner use
 * it), held and rush orders as a semi-join from production_orders_held_idx
 * and production_orders_rush_due_idx, which hold only those rows; the print
 * check's verdict likewise from order_preflight_flagged_idx.
 */
export function newestOrdersPageQuery(db: Database, page: NewestPage) {
  let query = db
    .selectFrom('orders')
    .selectAll()
    .where('organization_id', '=', page.scope.organizationId)
    .where('environment', '=', page.scope.environment)
  if (page.status) query = query.where('status', '=', page.status)
  if (page.from) query = query.where('created_at', '>=', page.from)
  if (page.until) query = query.where('created_at', '<', page.until)
  if (page.tag !== undefined) {
    query = query.where(sql<boolean>`tags <> '{}'`).where(sql<boolean>`tags @> array[${page.tag}]::text[]`)
  }
  const production = (condition: ReturnType<typeof sql<boolean>>) =>
    sql<boolean>`exists (select 1 from production_orders p where p.order_id = orders.id and ${condition})`
  if (page.held === true) query = query.where(production(sql`p.held_at is not null`))
  if (page.held === false) query = query.where(sql<boolean>`not ${production(sql`p.held_at is not null`)}`)
  if (page.priority === 'rush') query = query.where(production(sql`p.priority = 'rush'`))
  if (page.priority === 'normal')
    query = query.where(sql<boolean>`not ${production(sql`p.priority = 'rush'`)}`)
  if (page.partner !== undefined) {
    query = query.where(production(sql`p.produced_by_partner = ${page.partner}`))
  }
  if (page.preflight !== undefined) {
    query = query.where(
      sql<boolean>`exists (select 1 from order_preflight pf where pf.order_id = orders.id and pf.verdict = ${page.preflight})`,
    )
  }
  const search = page.search
  if (search) {
    const pattern = likePrefix(search)
    query = query.where((eb) =>
      eb.or(
        (['external_order_id', 'customer_email', 'customer_name'] as const).map((column) =>
          eb(eb.fn('lower', [column]), 'like', pattern),
        ),
      ),
    )
  }
  const before = page.before
  if (before) {
    query = query.where((eb) =>
      eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(before.createdAt, before.id)),
    )
  }
  return query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit + 1)
}
