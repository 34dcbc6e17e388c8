/** Tables of events and their delivery: endpoints, deliveries, attempts, the queue, replays, listen sessions, and the instances that run them. */
import type { ColumnType } from 'kysely'
import type { Environment, Json } from './common.ts'

export interface EventTable {
  id: string
  organization_id: string
  environment: Environment
  type: string
  order_id: string | null
  data: Json<Record<string, unknown>>
  /** The envelope as delivered, serialized once when the event is written. */
  body: string
  created_at: Date
  /** The writing transaction's id (xid8, as text): the listen streams' commit-safe order. */
  tx: ColumnType<string, never, never>
  /** The W3C traceparent of the request that wrote it, while traces are on (migration 0042). */
  trace_context: ColumnType<string | null, string | null | undefined, never>
}

export interface WebhookEndpointTable {
  id: string
  organization_id: string
  environment: Environment
  url: string
  description: string
  secret_encrypted: string
  /** The secret before the last rotation, sealed; it signs too until previous_secret_expires_at. */
  previous_secret_encrypted: ColumnType<string | null, string | null | undefined, string | null>
  previous_secret_expires_at: ColumnType<Date | null, Date | null | undefined, Date | null>
  pinned_addresses: string[]
  /** The event types this endpoint receives, or ['*'] for all; ping always reaches it. */
  enabled_events: ColumnType<string[], string[] | undefined, string[]>
  is_active: boolean
  disabled_reason: string | null
  consecutive_failures: ColumnType<number, number | undefined, number>
  last_success_at: Date | null
  last_failure_at: Date | null
  created_at: Date
  disabled_at: Date | null
  /** Its last attempt failed: one probe at a time, from then on; null while its attempts succeed. */
  next_probe_at: ColumnType<Date | null, Date | null | undefined, Date | null>
  /** When the secret last changed (a rotation); null when it has not since the column exists. */
  secret_changed_at: ColumnType<Date | null, Date | null | undefined, Date | null>
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed'

export interface WebhookDeliveryTable {
  id: ColumnType<string, string | undefined, never>
  event_id: string
  endpoint_id: string
  organization_id: string
  environment: Environment
  event_type: string
  status: DeliveryStatus
  attempts: ColumnType<number, number | undefined, number>
  next_attempt_at: Date | null
  last_attempt_at: Date | null
  response_status: number | null
  response_snippet: string | null
  error_code: string | null
  /** The last attempt's error in words (null after success). */
  error_message: ColumnType<string | null, string | null | undefined, string | null>
  duration_ms: number | null
  created_at: Date
  /** The entry this one repeats (a redelivery), else null. */
  redelivery_of: ColumnType<string | null, string | null | undefined, never>
  /** The redelivery whose success ended this entry's retries, else null. */
  superseded_by: ColumnType<string | null, never, never>
  /** The replay that queued this entry, else null. */
  replay_id: ColumnType<string | null, string | null | undefined, never>
  /** The traceparent of the request that asked for this entry (a redelivery or replay), else null. */
  trace_context: ColumnType<string | null, string | null | undefined, never>
}

/** One attempt made (a request sent), written with its result; append-only. */
export interface WebhookAttemptTable {
  delivery_id: string
  /** 1 for the first attempt of the delivery. */
  attempt: number
  started_at: Date
  duration_ms: number | null
  response_status: number | null
  response_snippet: string | null
  error_code: string | null
  error_message: string | null
  /** The signature's t (unix seconds) of an attempt sent; null when none was sent or before it was recorded. */
  signature_timestamp: ColumnType<number | null, number | null | undefined, number | null>
  /** The attempt's trace id while traces are on. */
  trace_id: ColumnType<string | null, string | null | undefined, never>
}

/** The attempts still to be made: one row per pending delivery (see migration 0007). */
export interface WebhookQueueTable {
  delivery_id: string
  event_id: string
  endpoint_id: string
  next_attempt_at: Date
  attempts: number
  locked_until: Date | null
  locked_by: string | null
  /** A redelivery: it goes when due even while its endpoint is failing (see migration 0025). */
  redelivery: ColumnType<boolean, boolean | undefined, boolean>
}

export type ReplayStatus = 'running' | 'completed' | 'cancelled'

/** A replay of an endpoint's events (see migration 0015). */
export interface WebhookReplayTable {
  id: string
  endpoint_id: string
  organization_id: string
  environment: Environment
  since: Date
  until: Date | null
  event_types: string[] | null
  only_failed: boolean
  status: ReplayStatus
  total: number
  queued: number
  in_queue: ColumnType<string[], string[] | undefined, string[]>
  fed_until: ColumnType<Date | null, never, never>
  created_at: Date
  finished_at: Date | null
  /** The traceparent of the request that asked for the replay, while traces are on. */
  trace_context: ColumnType<string | null, string | null | undefined, never>
}

/** The events a replay has still to queue, in recorded order (seq). */
export interface WebhookReplayEventTable {
  replay_id: string
  seq: number
  event_id: string
}

/** One running instance on PostgreSQL and where it keeps uploaded files. */
export interface ServiceInstanceTable {
  id: string
  file_store: string
  file_store_description: string
  hostname: string
  pid: number
  started_at: ColumnType<Date, Date | string, never>
  heartbeat_at: ColumnType<Date, Date | string, Date | string>
}

/** An open listen session (GET /v1/webhook-events/stream) of any instance, until its lease ends. */
export interface ListenSessionTable {
  id: string
  organization_id: string
  environment: Environment
  opened_at: Date
  expires_at: Date
}

/** How many events have been recorded for an order: the last event's per-order sequence. */
export interface OrderEventCounterTable {
  order_id: string
  last_sequence: number
}

/** Deliveries settled and not yet folded into webhook_daily_outcomes (migration 0031): no key, no index. */
export interface WebhookOutcomeChangeTable {
  organization_id: string
  environment: Environment
  day: ColumnType<Date, string, string>
  succeeded: number
  failed: number
}

/** Settled deliveries per organization, environment and UTC day of settling (migration 0031). */
export interface WebhookDailyOutcomeTable {
  organization_id: string
  environment: Environment
  day: ColumnType<Date, string, string>
  /** bigint: read as a string. */
  succeeded: ColumnType<string, number, number>
  failed: ColumnType<string, number, number>
}
