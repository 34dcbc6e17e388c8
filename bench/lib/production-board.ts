import pg from 'pg'
import { type TimedAction, timeAction, timeGet, WARM_UP } from './dashboard-timing.ts'
import type { Service } from './service.ts'

/**
 * The console's production board (GET /dashboard/api/operator/production) on
 * the seeded production orders, under each of its filters, and the board's
 * actions, as an operator. Every first page is checked against what the
 * filter asks and the board's order, so no line measures an empty or wrong
 * page.
 */
export interface ProductionBench {
  service: Service
  /** An operator's session. */
  cookie: string
  dbUrl: string
  /** The organization with most of the orders, and one with a thousandth of them. */
  orgs: { large: string; small: string }
  requests: number
  targetMs: number
}

interface Entry {
  production_order: { id: string; status: string; produced_by_partner: boolean }
  organization: { id: string }
  priority: 'rush' | 'normal'
  held: boolean
  due: { on: string; state: 'late' | 'today' | 'upcoming' } | null
  batch: { id: string; status: string } | null
  created_at: string
}

const PAGE = 25
const ACTION_P99_MS = 1000

interface BoardCase {
  query: string
  label?: string
  /** What each entry of the page must be; a string says what it is not. */
  each: (e: Entry) => string | null
  /** The page may be short (none due today on a day off). */
  mayBeShort?: boolean
}

const pending = (e: Entry) =>
  e.production_order.status !== 'pending' ? `status ${e.production_order.status}` : null

function boardCases(orgs: ProductionBench['orgs'], today: string, workingDay: boolean): BoardCase[] {
  const by = new Date(Date.parse(`${today}T00:00:00Z`) + 3 * 86_400_000).toISOString().slice(0, 10)
  const startable = (e: Entry) => pending(e) ?? (e.held ? 'held' : null)
  return [
    { query: '', each: startable },
    { query: 'due=late', each: (e) => startable(e) ?? (e.due?.state !== 'late' ? `due ${e.due?.on}` : null) },
    {
      query: 'due=today',
      each: (e) => startable(e) ?? (e.due?.on !== today ? `due ${e.due?.on}` : null),
      mayBeShort: !workingDay,
    },
    {
      query: `due_by=${by}`,
      each: (e) => startable(e) ?? (e.due === null || e.due.on > by ? `due ${e.due?.on}` : null),
    },
    {
      query: 'status=in_progress',
      each: (e) =>
        e.production_order.status !== 'in_progress' ? `status ${e.production_order.status}` : null,
    },
    {
      query: `organization_id=${orgs.large}`,
      label: '?organization_id=<the large organization>',
      each: (e) => startable(e) ?? (e.organization.id !== orgs.large ? 'another organization' : null),
    },
    {
      query: `organization_id=${orgs.small}`,
      label: '?organization_id=<a small organization>',
      each: (e) => startable(e) ?? (e.organization.id !== orgs.small ? 'another organization' : null),
    },
    { query: 'held=true', each: (e) => pending(e) ?? (e.held ? null : 'not held') },
    {
      query: 'partner=true',
      each: (e) => startable(e) ?? (e.production_order.produced_by_partner ? null : 'not by a partner'),
    },
  ]
}

/** The batch filters, once the batch starts made batches: their orders are in progress. */
function batchCases(batchId: string | undefined): BoardCase[] {
  const startable = (e: Entry) => pending(e) ?? (e.held ? 'held' : null)
  const inProgress = (e: Entry) =>
    e.production_order.status !== 'in_progress' ? `status ${e.production_order.status}` : null
  return [
    { query: 'batch=none', each: (e) => startable(e) ?? (e.batch ? `in batch ${e.batch.id}` : null) },
    { query: 'status=in_progress&batch=any', each: (e) => inProgress(e) ?? (e.batch ? null : 'in no batch') },
    ...(batchId
      ? [
          {
            query: `status=in_progress&batch=${batchId}`,
            label: '?status=in_progress&batch=<a batch>',
            each: (e: Entry) => inProgress(e) ?? (e.batch?.id === batchId ? null : 'in another batch'),
            mayBeShort: true,
          },
        ]
      : []),
  ]
}

/** The board's order: rush orders first (except the held list, one list), each by due date (none: last), created_at, id. */
function orderProblem(entries: Entry[], held: boolean): string | null {
  const key = (e: Entry) => [
    held || e.priority === 'rush' ? 0 : 1,
    e.due?.on ?? '9999-12-31',
    e.created_at,
    e.production_order.id,
  ]
  for (let i = 1; i < entries.length; i++) {
    const [a, b] = [key(entries[i - 1]!), key(entries[i]!)]
    const cmp = a.map((v, k) => (v < b[k]! ? -1 : v > b[k]! ? 1 : 0)).find((c) => c !== 0) ?? 0
    if (cmp >= 0) return `entry ${i} (${b.join(' ')}) comes after ${a.join(' ')}`
  }
  return null
}

async function timeBoard(ctx: ProductionBench, c: BoardCase): Promise<number> {
  const path = `/operator/production${c.query ? `?${c.query}` : ''}`
  const timed = await timeGet(ctx.service.base, ctx.cookie, path, {
    requests: ctx.requests,
    targetMs: ctx.targetMs,
    ...(c.label ? { label: `GET /operator/production${c.label}` } : {}),
  })
  const entries = (JSON.parse(timed.last) as { data: Entry[] }).data
  const problems = [
    entries.length < PAGE && !c.mayBeShort ? `${entries.length} entries, not a full page of ${PAGE}` : null,
    ...entries.map((e, i) => {
      const wrong = c.each(e)
      return wrong && `entry ${i}: ${wrong}`
    }),
    orderProblem(entries, c.query === 'held=true'),
  ].filter((p) => p !== null)
  if (problems.length > 0) throw new Error(`${path}: ${problems.slice(0, 3).join('; ')}`)
  return timed.p50
}

/** A POST of the console as the operator, with the session's CSRF token. */
async function consolePost(ctx: ProductionBench, csrf: string, path: string, body: unknown) {
  const res = await fetch(`${ctx.service.base}/dashboard/api${path}`, {
    method: 'POST',
    headers: {
      cookie: ctx.cookie,
      origin: ctx.service.base,
      'x-csrf-token': csrf,
      'content-type': 'application/json',
    },
    body: JSON.stringify(body),
  })
  const json = await res.json()
  if (res.status !== 200 && res.status !== 201)
    throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(json).slice(0, 300)}`)
  return json
}

/**
 * One of the board's actions, on targets of its own among the seeded
 * pending, startable production orders (distinct, so no action finds its work
 * done): a target is one production order or several (a batch).
 */
interface ProductionAction<T> extends TimedAction<T> {
  /** `count` targets, from `pick`: the ids of that many startable production orders not taken yet. */
  targets(pick: (count: number) => Promise<string[]>, count: number): Promise<T[]>
  /** The production orders a target moves to in_progress. */
  moved(target: T): string[]
}

/** An action timed on `count` targets: its p99 and the production orders it moved. */
type ActionRun = (
  pick: (count: number) => Promise<string[]>,
  count: number,
) => Promise<{ p99: number; ids: string[] }>

const run = <T>(action: ProductionAction<T>): [ProductionAction<T>, ActionRun] => [
  action,
  async (pick, count) => {
    const targets = await action.targets(pick, count)
    const timed = await timeAction(action, targets)
    return { p99: timed.p99, ids: targets.flatMap((t) => action.moved(t)) }
  },
]

/** The board's actions, each timed on WARM_UP + requests targets; one more is one more entry. */
function productionActions(ctx: ProductionBench, csrf: string) {
  const start: ProductionAction<string> = {
    label: 'start: POST /operator/production-orders/:id/status',
    targetMs: ACTION_P99_MS,
    targets: (pick, count) => pick(count),
    moved: (id) => [id],
    async act(id) {
      const answer = await consolePost(ctx, csrf, `/operator/production-orders/${id}/status`, {
        status: 'in_progress',
        expected_status: 'pending',
      })
      const { production_order, events } = answer.data
      if (production_order.status !== 'in_progress' || events.length !== 1)
        throw new Error(`start ${id}: ${JSON.stringify(answer.data).slice(0, 300)}`)
      if (events[0].type !== 'order.production_started') throw new Error(`start ${id}: ${events[0].type}`)
    },
  }
  /** A batch of BATCH_SIZE orders, made untimed; its start is timed (each order's event checked). */
  const batchStart: ProductionAction<{ batchId: string; ids: string[] }> = {
    label: `batch start: POST /operator/batches/:id/start (${BATCH_SIZE} orders)`,
    targetMs: ACTION_P99_MS,
    async targets(pick, count) {
      const batches = []
      for (let i = 0; i < Math.min(count, WARM_UP + BATCH_STARTS); i++) {
        const ids = await pick(BATCH_SIZE)
        const made = await consolePost(ctx, csrf, '/operator/batches', {
          name: `Bench batch ${i + 1}`,
          production_order_ids: ids,
        })
        batches.push({ batchId: made.data.batch.id as string, ids })
      }
      return batches
    },
    moved: (target) => target.ids,
    async act(target) {
      const answer = await consolePost(ctx, csrf, `/operator/batches/${target.batchId}/start`, {})
      const { batch, results, events } = answer.data
      const changed = results.filter((r: { outcome: string }) => r.outcome === 'changed').length
      const started = events.filter((e: { type: string }) => e.type === 'order.production_started').length
      if (batch.status !== 'in_progress' || changed !== BATCH_SIZE || started !== BATCH_SIZE)
        throw new Error(`batch start ${target.batchId}: ${changed} changed, ${started} events`)
    },
  }
  return [run(start), run(batchStart)]
}

/** The batch start's batches: this many orders each, and this many timed. */
const BATCH_SIZE = 100
const BATCH_STARTS = 50

export async function benchProductionBoard(ctx: ProductionBench): Promise<{ failed: boolean }> {
  const db = new pg.Client({ connectionString: ctx.dbUrl })
  await db.connect()
  try {
    const day = await db.query(
      `select to_char(d, 'YYYY-MM-DD') as today,
        extract(isodow from d)::int = any(c.working_weekdays) and not exists (select 1 from closed_days where day = d)
          as working
      from production_calendar c, lateral (select (now() at time zone c.time_zone)::date as d) t`,
    )
    const { today, working } = day.rows[0]
    const counts = await db.query(
      `select count(*)::int as all, count(*) filter (where p.status = 'pending' and p.held_at is null)::int as startable,
        count(*) filter (where p.status in ('pending', 'in_progress') and p.due_on < $1::date)::int as late,
        count(*) filter (where p.due_on = $1::date)::int as today
      from production_orders p`,
      [today],
    )
    const c = counts.rows[0]
    console.log(
      `${c.all} production orders: ${c.startable} startable, ${c.late} late, ${c.today} due today (${today}${working ? '' : ', not a working day'})`,
    )
    let failed = false
    for (const board of boardCases(ctx.orgs, today, working))
      failed = (await timeBoard(ctx, board)) >= ctx.targetMs || failed

    const session = await fetch(`${ctx.service.base}/dashboard/api/session`, {
      headers: { cookie: ctx.cookie },
    })
    const csrf = ((await session.json()) as { data: { csrf_token: string } }).data.csrf_token
    const taken = new Set<string>()
    // Startable production orders nobody took yet, scattered over the seed (by a hash of their ids).
    const pick = async (count: number) => {
      const rows = await db.query(
        `select id from production_orders
        where status = 'pending' and held_at is null and awaiting_rules is null and not (id = any($1::uuid[]))
        order by md5(id::text) limit $2`,
        [[...taken], count],
      )
      if (rows.rows.length < count) throw new Error(`only ${rows.rows.length} startable production orders`)
      for (const r of rows.rows) taken.add(r.id)
      return rows.rows.map((r) => r.id as string)
    }
    for (const [action, timed] of productionActions(ctx, csrf)) {
      const { p99, ids } = await timed(pick, WARM_UP + ctx.requests)
      const moved = await db.query(
        `select count(*)::int as n from production_orders p join orders o on o.id = p.order_id
        where p.id = any($1::uuid[]) and p.status = 'in_progress' and o.status = 'in_production'`,
        [ids],
      )
      if (moved.rows[0].n !== ids.length)
        throw new Error(`${action.label}: ${moved.rows[0].n} of ${ids.length} production orders in progress`)
      failed = p99 >= action.targetMs || failed
    }
    const batch = await db.query(
      `select id from batches where status = 'in_progress' order by created_at limit 1`,
    )
    for (const board of batchCases(batch.rows[0]?.id))
      failed = (await timeBoard(ctx, board)) >= ctx.targetMs || failed
    return { failed }
  } finally {
    await db.end()
  }
}
