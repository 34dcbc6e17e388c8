import type { Database } from '../../db/database.ts'
import type { ApiRequestRow, Environment, Role } from '../../db/schema.ts'
import { ENVIRONMENTS } from '../../db/schema.ts'
import { tryTransactionLock } from '../../db/upkeep.ts'
import { AppError } from '../../http/errors.ts'
import { cursorCodec, keysetPage, type Page } from '../../http/pagination.ts'
import { createdWindow } from '../../http/query-timestamps.ts'
import type { Clock } from '../../lib/clock.ts'
import { isUuid } from '../../lib/ids.ts'
import { KEPT_BODY_BYTES } from './requests.capture.ts'
import type { RequestRecorder } from './requests.recorder.ts'
import {
  findRequest,
  listRequests,
  organizationIds,
  pruneRequests,
  type RequestFilter,
  requestsById,
} from './requests.repo.ts'

/** Lines kept at most per organization and environment (the oldest go first). */
export const REQUEST_LOG_MAX_LINES = 100_000
/** Days a line is kept at most. */
export const REQUEST_LOG_DAYS = 30
export const DEFAULT_REQUESTS_LIMIT = 25

export const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx'] as const
export const LOGGED_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const

export interface RequestScope {
  organizationId: string
  environment: Environment
}

/** The Requests page's query (the dashboard's schema has checked each value). */
export interface RequestLogQuery {
  status_class?: (typeof STATUS_CLASSES)[number] | undefined
  error_code?: string | undefined
  method?: (typeof LOGGED_METHODS)[number] | undefined
  path?: string | undefined
  key_id?: string | undefined
  request_id?: string | undefined
  order_id?: string | undefined
  created_since?: string | undefined
  created_until?: string | undefined
  limit?: number | undefined
  cursor?: string | undefined
}

const CURSOR = cursorCodec('r1.')

export function requestLineView(row: ApiRequestRow) {
  return {
    id: row.id,
    created_at: row.created_at.toISOString(),
    environment: row.environment,
    key_id: row.key_id,
    key_prefix: row.key_prefix,
    method: row.method,
    path: row.path,
    status: row.status,
    error_code: row.error_code,
    duration_ms: row.duration_ms,
    request_id: row.request_id,
    order_id: row.order_id,
    trace_id: row.trace_id,
  }
}
export type RequestLineView = ReturnType<typeof requestLineView>

/** A string in single quotes for a POSIX shell. */
const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`

/**
 * A curl command repeating the request, the key left to the environment
 * variable SERVICE_API_KEY. A body the log holds whole is inlined; a body cut
 * at 16 KB, or hidden from the reader, is read from a file named request.json.
 */
export function curlCommand(row: ApiRequestRow, baseUrl: string, showBody: boolean): string {
  const lines = [`curl -X ${row.method} ${shellQuote(`${baseUrl}${row.path}`)}`]
  lines.push(`  -H "Authorization: Bearer $SERVICE_API_KEY"`)
  const hasBody = row.request_body !== null || (row.request_body_bytes ?? 0) > 0
  if (hasBody) {
    lines.push(`  -H ${shellQuote(`Content-Type: ${row.content_type ?? 'application/json'}`)}`)
    const whole = row.request_body !== null && Buffer.byteLength(row.request_body) === row.request_body_bytes
    lines.push(
      showBody && whole ? `  --data-raw ${shellQuote(row.request_body!)}` : '  --data-binary @request.json',
    )
  }
  return lines.join(' \\\n')
}

/**
 * The request log as the dashboard reads it: an organization's lines of one
 * environment, newest first, and one line with its bodies. Viewers read the
 * lines without bodies. Reads write this process's waiting lines first, so a
 * single instance shows every request up to the last answered one.
 */
export function createRequestLogService(deps: {
  db: Database
  clock: Clock
  recorder: RequestRecorder
  publicBaseUrl: string
}) {
  const { db, recorder } = deps

  function filterOf(scope: RequestScope, query: RequestLogQuery): RequestFilter {
    const { since, until } = createdWindow(query)
    const cursor = query.cursor === undefined ? undefined : CURSOR.decode(query.cursor)
    return {
      organizationId: scope.organizationId,
      environment: scope.environment,
      ...(query.status_class !== undefined ? { statusClass: Number(query.status_class[0]) * 100 } : {}),
      ...(query.error_code !== undefined ? { errorCode: query.error_code } : {}),
      ...(query.method !== undefined ? { method: query.method } : {}),
      ...(query.path !== undefined ? { pathPrefix: query.path } : {}),
      ...(query.key_id !== undefined ? { keyId: query.key_id } : {}),
      ...(query.request_id !== undefined ? { requestId: query.request_id } : {}),
      ...(query.order_id !== undefined ? { orderId: query.order_id } : {}),
      ...(since ? { createdSince: since } : {}),
      ...(until ? { createdUntil: until } : {}),
      ...(cursor ? { before: { createdAt: cursor.at, id: cursor.id } } : {}),
      limit: (query.limit ?? DEFAULT_REQUESTS_LIMIT) + 1,
    }
  }

  return {
    recorder,

    async list(scope: RequestScope, query: RequestLogQuery): Promise<Page<RequestLineView>> {
      const filter = filterOf(scope, query)
      await recorder.flush()
      const rows = await listRequests(db, filter)
      return keysetPage(rows, filter.limit - 1, {
        view: requestLineView,
        cursor: (row) => CURSOR.encode({ at: row.created_at, id: row.id }),
      })
    },

    async get(scope: RequestScope, id: string, role: Role) {
      await recorder.flush()
      const row = isUuid(id) ? await findRequest(db, scope, id) : undefined
      if (!row) throw new AppError('not_found', { message: 'No request with this id in this environment.' })
      const showBodies = role !== 'viewer'
      return {
        ...requestLineView(row),
        content_type: row.content_type,
        request_body: showBodies ? row.request_body : null,
        request_body_bytes: row.request_body_bytes,
        request_body_truncated:
          row.request_body !== null &&
          row.request_body_bytes !== null &&
          row.request_body_bytes > Buffer.byteLength(row.request_body),
        response_body: showBodies ? row.response_body : null,
        bodies_hidden: !showBodies,
        curl: curlCommand(row, deps.publicBaseUrl, showBodies),
      }
    },

    /** The organization's lines answered with this X-Request-Id (the header search). */
    async byRequestId(organizationId: string, requestId: string, limit = 5) {
      await recorder.flush()
      return (await requestsById(db, organizationId, requestId, limit)).map(requestLineView)
    },

    /**
     * Deletes lines older than REQUEST_LOG_DAYS and beyond REQUEST_LOG_MAX_LINES
     * per organization and environment; an organization another instance is
     * pruning is left to it. Answers how many lines went.
     */
    async prune(options: { days?: number; maxLines?: number } = {}): Promise<number> {
      const olderThan = new Date(deps.clock.now().getTime() - (options.days ?? REQUEST_LOG_DAYS) * 86_400_000)
      let deleted = 0
      for (const id of await organizationIds(db)) {
        for (const environment of ENVIRONMENTS) {
          deleted += await db.transaction().execute(async (trx) => {
            if (!(await tryTransactionLock(trx, `request-log-prune:${id}:${environment}`))) return 0
            return pruneRequests(
              trx,
              { organizationId: id, environment },
              olderThan,
              options.maxLines ?? REQUEST_LOG_MAX_LINES,
            )
          })
        }
      }
      return deleted
    },
  }
}

export { KEPT_BODY_BYTES }
export type RequestLogService = ReturnType<typeof createRequestLogService>
