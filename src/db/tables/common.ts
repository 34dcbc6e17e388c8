import type { ColumnType } from 'kysely'

export const ENVIRONMENTS = ['test', 'live'] as const
export type Environment = (typeof ENVIRONMENTS)[number]
export const ORDER_SOURCES = ['api', 'shop'] as const
export type OrderSource = (typeof ORDER_SOURCES)[number]

/** numeric columns come back as strings from both drivers; they go in as numbers. */
export type NullableNumeric = ColumnType<string | null, number | string | null, number | string | null>
/** json columns: written as a JSON string, read back parsed. */
export type Json<T> = ColumnType<T, string, string>

/** A production order's status (the reference's five). */
export type ProductionStatus = 'pending' | 'in_progress' | 'completed' | 'failed' | 'cancelled'

/** A line of the request log: a /v1 request made with an API key (module requests). */
export interface ApiRequestTable {
  id: string
  organization_id: string
  environment: Environment
  key_id: string
  key_prefix: string
  created_at: Date
  method: string
  path: string
  status: number
  error_code: string | null
  duration_ms: number
  request_id: string
  /** The order a POST /v1/orders created or answered again. */
  order_id: string | null
  content_type: string | null
  /** The body as sent, its first 16 KB, secrets replaced; null when none is kept. */
  request_body: string | null
  request_body_bytes: number | null
  /** The whole error answer (status 400 and above). */
  response_body: string | null
  /** The request's trace id while traces are on (migration 0042). */
  trace_id: ColumnType<string | null, string | null | undefined, string | null>
}
