import { type Insertable, sql } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { ApiRequestRow, ApiRequestTable, Environment } from '../../db/schema.ts'

/**
 * Writes lines in one statement of constant text (a column an array, unnested):
 * prepared once per connection whatever the number of lines, where a VALUES
 * list would be a statement of its own for every count.
 */
export async function insertRequestLines(db: Database, lines: Insertable<ApiRequestTable>[]): Promise<void> {
  if (lines.length === 0) return
  const column = <K extends keyof ApiRequestTable>(key: K) =>
    lines.map((line) => (line[key] ?? null) as Insertable<ApiRequestTable>[K] | null)
  await sql`
    insert into api_requests (id, organization_id, environment, key_id, key_prefix, created_at, method, path,
      status, error_code, duration_ms, request_id, order_id, content_type, request_body, request_body_bytes,
      response_body, trace_id)
    select * from unnest(${column('id')}::uuid[], ${column('organization_id')}::uuid[],
      ${column('environment')}::text[], ${column('key_id')}::uuid[], ${column('key_prefix')}::text[],
      ${lines.map((l) => new Date(l.created_at as Date).toISOString())}::timestamptz[], ${column('method')}::text[],
      ${column('path')}::text[], ${column('status')}::smallint[], ${column('error_code')}::text[],
      ${column('duration_ms')}::real[], ${column('request_id')}::text[], ${column('order_id')}::text[],
      ${column('content_type')}::text[], ${column('request_body')}::text[],
      ${column('request_body_bytes')}::integer[], ${column('response_body')}::text[],
      ${column('trace_id')}::text[])`.execute(db)
}

/** What the Requests page narrows the log to; organization and environment always, the rest combine. */
export interface RequestFilter {
  organizationId: string
  environment: Environment
  /** 200, 300, 400 or 500: the status class. */
  statusClass?: number
  errorCode?: string
  method?: string
  /** Paths starting with this. */
  pathPrefix?: string
  keyId?: string
  requestId?: string
  orderId?: string
  /** created_at >= createdSince */
  createdSince?: Date
  /** created_at < createdUntil */
  createdUntil?: Date
  /** Only lines after this one in the page order: the next page. */
  before?: { createdAt: Date; id: string }
  limit: number
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

/** Lines, newest first; every filter walks the organization's and environment's time index. */
export async function listRequests(db: Database, filter: RequestFilter): Promise<ApiRequestRow[]> {
  let query = db
    .selectFrom('api_requests')
    .selectAll()
    .where('organization_id', '=', filter.organizationId)
    .where('environment', '=', filter.environment)
  if (filter.statusClass !== undefined) {
    query = query.where('status', '>=', filter.statusClass).where('status', '<', filter.statusClass + 100)
  }
  if (filter.errorCode !== undefined) query = query.where('error_code', '=', filter.errorCode)
  if (filter.method !== undefined) query = query.where('method', '=', filter.method)
  if (filter.pathPrefix !== undefined) {
    query = query.where('path', 'like', `${escapeLike(filter.pathPrefix)}%`)
  }
  if (filter.keyId !== undefined) query = query.where('key_id', '=', filter.keyId)
  if (filter.requestId !== undefined) query = query.where('request_id', '=', filter.requestId)
  if (filter.orderId !== undefined) query = query.where('order_id', '=', filter.orderId)
  if (filter.createdSince) query = query.where('created_at', '>=', filter.createdSince)
  if (filter.createdUntil) query = query.where('created_at', '<', filter.createdUntil)
  if (filter.before) {
    query = query.where(
      sql`(created_at, id)`,
      '<',
      sql`(${filter.before.createdAt}::timestamptz, ${filter.before.id}::uuid)`,
    )
  }
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(filter.limit).execute()
}

/** One line of the organization's environment. */
export async function findRequest(
  db: Database,
  scope: { organizationId: string; environment: Environment },
  id: string,
): Promise<ApiRequestRow | undefined> {
  return db
    .selectFrom('api_requests')
    .selectAll()
    .where('id', '=', id)
    .where('organization_id', '=', scope.organizationId)
    .where('environment', '=', scope.environment)
    .executeTakeFirst()
}

/** The organization's lines with this X-Request-Id (either environment), newest first. */
export async function requestsById(
  db: Database,
  organizationId: string,
  requestId: string,
  limit: number,
): Promise<ApiRequestRow[]> {
  return db
    .selectFrom('api_requests')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('request_id', '=', requestId)
    .orderBy('created_at', 'desc')
    .limit(limit)
    .execute()
}

/** Every organization's id (pruning visits each). */
export async function organizationIds(db: Database): Promise<string[]> {
  return (await db.selectFrom('organizations').select('id').execute()).map((o) => o.id)
}

/** Lines deleted by one statement at most, so pruning never holds a long transaction. */
const PRUNE_BATCH = 5000

/**
 * Deletes an organization's environment's lines older than `olderThan`, and
 * those beyond the newest `keep`; each statement walks the page index.
 * Answers how many went.
 */
export async function pruneRequests(
  db: Database,
  scope: { organizationId: string; environment: Environment },
  olderThan: Date,
  keep: number,
): Promise<number> {
  const own = db
    .selectFrom('api_requests')
    .where('organization_id', '=', scope.organizationId)
    .where('environment', '=', scope.environment)
  const cut = await own
    .select(['created_at', 'id'])
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .offset(keep)
    .limit(1)
    .executeTakeFirst()
  let deleted = 0
  for (;;) {
    const doomed = own
      .select('id')
      .where((eb) =>
        cut && cut.created_at >= olderThan
          ? eb(sql`(created_at, id)`, '<=', sql`(${cut.created_at}::timestamptz, ${cut.id}::uuid)`)
          : eb('created_at', '<', olderThan),
      )
    const result = await db
      .deleteFrom('api_requests')
      .where('id', 'in', doomed.orderBy('created_at').limit(PRUNE_BATCH))
      .executeTakeFirst()
    const n = Number(result.numDeletedRows)
    deleted += n
    if (n < PRUNE_BATCH) return deleted
  }
}
