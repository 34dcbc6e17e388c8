import { sql } from 'kysely'
import { type Database, PLAN_EACH_TIME } from '../../../db/database.ts'
import type { ProductionStatus } from '../../../db/tables/common.ts'

/** The production board's reads: a page of one status under its filters, and each status's count. */
export interface BoardFilter {
  status: ProductionStatus
  organizationId?: string | undefined
  producedByPartner?: boolean | undefined
  /** Only production orders created at or before this time (the board's age filter). */
  createdBefore?: Date | undefined
  /** Held for review (true: only held; false: only startable ones). */
  held?: boolean | undefined
  /** Only orders with this tag. */
  tag?: string | undefined
  /** Only orders whose files' print check found problems (or warnings, not problems). */
  preflight?: 'problem' | 'warning' | undefined
  /** One priority: the board reads rush orders first, then the normal ones. */
  priority?: 'rush' | 'normal' | undefined
  /** By due date, against today in the calendar's time zone: late (open and past due), due today, due by a day. */
  due?: { late: string } | { today: string } | { by: string } | undefined
  /** In no open batch, in one, or in this batch (open or finished). */
  batch?: 'none' | 'any' | { id: string } | undefined
  after?: { due: string | null; createdAt: Date; id: string } | undefined
  limit: number
}

/**
 * The batch filter's condition (migration 0039). In a batch: the members,
 * read first (a batch holds at most 500, open batches a small part of the
 * board) and looked up by id; in none: every order but those, walking the
 * board's index.
 */
function batchCondition(batch: NonNullable<BoardFilter['batch']>) {
  if (typeof batch === 'object') {
    return sql<boolean>`p.id = any(array(select m.production_order_id from batch_orders m where m.batch_id = ${batch.id}::uuid))`
  }
  if (batch === 'any') {
    return sql<boolean>`p.id = any(array(select m.production_order_id from batch_orders m where m.open))`
  }
  return sql<boolean>`not exists (select 1 from batch_orders m where m.production_order_id = p.id and m.open)`
}

/** A filter on batch members: few rows, counted in one pass rather than a walk per status. */
const byMembers = (batch: BoardFilter['batch']) => batch === 'any' || typeof batch === 'object'

/** Marks a statement filtered by organization: planned for that organization's size each time. */
const planEachTime = sql<boolean>`true ${sql.raw(PLAN_EACH_TIME)}`

/** A tag through orders_tags_idx (its condition tags <> '{}' lets the planner use it). */
const tagged = (tag: string) => sql<boolean>`o.tags <> '{}' and o.tags @> array[${tag}]::text[]`

/** An order (by its id's column) whose print check has this verdict, from order_preflight_flagged_idx. */
const flagged = (orderId: 'p.order_id', verdict: 'problem' | 'warning') =>
  sql<boolean>`exists (select 1 from order_preflight pf where pf.order_id = ${sql.ref(orderId)} and pf.verdict = ${verdict})`

/** The board's order within a status: due date (none yet: last), then arrival; as the indexes of migration 0038. */
export const dueKey = sql<string>`coalesce(p.due_on, 'infinity'::date)`

/** The due date filter's condition, on dueKey (so the board's indexes serve it). */
function dueCondition(due: NonNullable<BoardFilter['due']>) {
  if ('late' in due)
    return sql<boolean>`${dueKey} < ${due.late}::date and p.status in ('pending', 'in_progress')`
  if ('today' in due) return sql<boolean>`${dueKey} = ${due.today}::date`
  return sql<boolean>`${dueKey} <= ${due.by}::date`
}

/** The board's rows of one status with its filters (the page's keyset condition aside). */
function boardRows(db: Database, filter: Omit<BoardFilter, 'after' | 'limit'>) {
  let query = db
    .selectFrom('production_orders as p')
    .innerJoin('orders as o', 'o.id', 'p.order_id')
    .where('p.status', '=', filter.status)
    .where('o.environment', '=', 'live')
  if (filter.organizationId !== undefined)
    query = query.where('o.organization_id', '=', filter.organizationId).where(planEachTime)
  if (filter.producedByPartner !== undefined) {
    query = query.where('p.produced_by_partner', '=', filter.producedByPartner)
  }
  if (filter.createdBefore !== undefined) query = query.where('p.created_at', '<=', filter.createdBefore)
  if (filter.held === true) query = query.where('p.held_at', 'is not', null)
  if (filter.held === false) query = query.where('p.held_at', 'is', null)
  if (filter.priority !== undefined) query = query.where('p.priority', '=', filter.priority)
  if (filter.tag !== undefined) query = query.where(tagged(filter.tag))
  if (filter.preflight !== undefined) query = query.where(flagged('p.order_id', filter.preflight))
  if (filter.due !== undefined) query = query.where(dueCondition(filter.due))
  if (filter.batch !== undefined) query = query.where(batchCondition(filter.batch))
  return query
}

/**
 * One page of the production board: live production orders of one status,
 * soonest due first, then oldest, on (due date, created_at, id) with a
 * keyset condition read from production_orders_due_idx (or, for rush
 * orders, production_orders_rush_due_idx; migration 0038). One extra row
 * tells whether a next page exists.
 */
export async function findBoardPage(db: Database, filter: BoardFilter) {
  let query = boardRows(db, filter)
    .innerJoin('organizations as org', 'org.id', 'o.organization_id')
    .select([
      'p.id',
      'p.order_id',
      'p.status',
      'p.produced_by_partner',
      'p.priority',
      'p.held_at',
      'p.hold',
      'p.awaiting_rules',
      sql<string | null>`to_char(p.due_on, 'YYYY-MM-DD')`.as('due_on'),
      'p.created_at',
      'p.updated_at',
      'o.organization_id',
      'org.name as organization_name',
      'o.external_order_id',
      'o.tags',
      'o.source',
      'o.status as order_status',
      'o.customer_name',
    ])
  if (filter.after !== undefined) {
    const { due, createdAt, id } = filter.after
    query = query.where(
      sql<boolean>`(${dueKey}, p.created_at, p.id) > (${due ?? 'infinity'}::date, ${createdAt}::timestamptz, ${id}::uuid)`,
    )
  }
  return query
    .orderBy(dueKey)
    .orderBy('p.created_at')
    .orderBy('p.id')
    .limit(filter.limit + 1)
    .execute()
}

/**
 * The rows the board counts for one status. Only live orders have production
 * orders, so without an organization the count reads production_orders alone;
 * with one, the organization's orders are a semi-join.
 */
function countedRows(
  db: Database,
  filter: Omit<BoardFilter, 'after' | 'limit' | 'status'> & { status?: ProductionStatus },
) {
  let query = db.selectFrom('production_orders as p')
  if (filter.status !== undefined) query = query.where('p.status', '=', filter.status)
  if (filter.organizationId !== undefined) {
    query = query
      .where(planEachTime)
      .where(
        'p.order_id',
        'in',
        db
          .selectFrom('orders as o')
          .select('o.id')
          .where('o.organization_id', '=', filter.organizationId)
          .where('o.environment', '=', 'live'),
      )
  }
  if (filter.producedByPartner !== undefined) {
    query = query.where('p.produced_by_partner', '=', filter.producedByPartner)
  }
  if (filter.createdBefore !== undefined) query = query.where('p.created_at', '<=', filter.createdBefore)
  if (filter.held === true) query = query.where('p.held_at', 'is not', null)
  if (filter.held === false) query = query.where('p.held_at', 'is', null)
  if (filter.tag !== undefined) {
    const tag = filter.tag
    query = query.where(
      'p.order_id',
      'in',
      db.selectFrom('orders as o').select('o.id').where(tagged(tag)).where('o.environment', '=', 'live'),
    )
  }
  if (filter.preflight !== undefined) query = query.where(flagged('p.order_id', filter.preflight))
  if (filter.due !== undefined) query = query.where(dueCondition(filter.due))
  if (filter.batch !== undefined) query = query.where(batchCondition(filter.batch))
  return query
}

/**
 * Production orders held for review under the board's filters, counted up
 * to `cap` + 1 from production_orders_held_idx, which holds only them (a
 * held order is pending until it is released or cancelled).
 */
export async function countHeld(
  db: Database,
  filter: Omit<BoardFilter, 'status' | 'after' | 'limit' | 'held'>,
  cap: number,
): Promise<number> {
  const row = await db
    .selectFrom(
      countedRows(db, { ...filter, status: 'pending', held: true })
        .select(sql<number>`1`.as('one'))
        .limit(cap + 1)
        .as('capped'),
    )
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/**
 * The board's count of each status under its filters, in one statement.
 * Counting stops at `cap` + 1 rows per status (a walk of at most that many
 * entries of production_orders_board_idx where nothing else filters), so the
 * board costs the same whether a status holds a hundred orders or a million.
 */
export async function countBoard(
  db: Database,
  filter: Omit<BoardFilter, 'status' | 'after' | 'limit' | 'held'>,
  statuses: readonly ProductionStatus[],
  cap: number,
): Promise<Record<ProductionStatus, number>> {
  if (byMembers(filter.batch)) {
    // Held orders are counted apart: pending counts the startable ones.
    const rows = await countedRows(db, filter)
      .where((eb) => eb.not(eb.and([eb('p.status', '=', 'pending'), eb('p.held_at', 'is not', null)])))
      .select(['p.status', (eb) => eb.fn.countAll<string>().as('n')])
      .groupBy('p.status')
      .execute()
    const found = new Map(rows.map((r) => [r.status, Number(r.n)]))
    return Object.fromEntries(statuses.map((s) => [s, found.get(s) ?? 0])) as Record<ProductionStatus, number>
  }
  // Late means open: the finished statuses have none, and walking them to find none would read them all.
  const counted =
    filter.due !== undefined && 'late' in filter.due
      ? statuses.filter((s) => s === 'pending' || s === 'in_progress')
      : statuses
  if (counted.length === 0)
    return Object.fromEntries(statuses.map((s) => [s, 0])) as Record<ProductionStatus, number>
  const row = await db
    .selectNoFrom((eb) =>
      counted.map((status) =>
        eb
          .selectFrom(
            // Held orders are counted apart: pending counts the startable ones.
            countedRows(db, { ...filter, status, ...(status === 'pending' ? { held: false } : {}) })
              .select(sql<number>`1`.as('one'))
              .limit(cap + 1)
              .as('capped'),
          )
          .select((c) => c.fn.countAll<string>().as('n'))
          .as(status),
      ),
    )
    .executeTakeFirstOrThrow()
  const counts = row as Record<string, string | number | bigint>
  return Object.fromEntries(statuses.map((s) => [s, Number(counts[s] ?? 0)])) as Record<
    ProductionStatus,
    number
  >
}

/**
 * Open production orders (pending, held included, and in production) that
 * are late and due today, counted up to `cap` + 1 each from the board's
 * due index, so the Home page costs the same at any size.
 */
export async function countDue(
  db: Database,
  filter: { organizationId?: string | undefined },
  today: string,
  cap: number,
): Promise<{ late: number; today: number }> {
  const counted = (due: NonNullable<BoardFilter['due']>) =>
    db
      .selectFrom(
        (['pending', 'in_progress'] as const)
          .map((status) => countedRows(db, { ...filter, status, due }).select(sql<number>`1`.as('one')))
          .reduce((all, next) => all.unionAll(next))
          .limit(cap + 1)
          .as('capped'),
      )
      .select((c) => c.fn.countAll<string>().as('n'))
  const row = await db
    .selectNoFrom(() => [counted({ late: today }).as('late'), counted({ today }).as('today')])
    .executeTakeFirstOrThrow()
  return { late: Number(row.late ?? 0), today: Number(row.today ?? 0) }
}
