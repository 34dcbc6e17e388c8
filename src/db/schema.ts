import type { ColumnType, Generated, Selectable } from 'kysely'

export const ENVIRONMENTS = ['test', 'live'] as const
export type Environment = (typeof ENVIRONMENTS)[number]
export const ORDER_SOURCES = ['api', 'shop'] as const
export type OrderSource = (typeof ORDER_SOURCES)[number]

/** numeric columns come back as strings from both drivers; they go in as numbers. */
type NullableNumeric = ColumnType<string | null, number | string | null, number | string | null>
/** json columns: written as a JSON string, read back parsed. */
type Json<T> = ColumnType<T, string, string>

export interface OrganizationTable {
  id: string
  name: string
  created_at: Date
}

export interface ApiKeyTable {
  id: string
  organization_id: string
  environment: Environment
  scopes: string[]
  key_prefix: string
  key_hash: string
  name: string | null
  expires_at: Date | null
  revoked_at: Date | null
  created_at: Date
  /** A member's email, or `operator`. */
  created_by: string
  /** At most a minute behind the latest use (written once a minute per key). */
  last_used_at: Date | null
}

export interface ProductTable {
  id: string
  organization_id: string
  sku: string
  name: string
  created_at: Date
}

export interface OrderTable {
  id: string
  organization_id: string
  environment: Environment
  source: OrderSource
  external_order_id: string
  status: string
  currency: string | null
  total_amount: NullableNumeric
  customer_name: string
  customer_email: string | null
  customer_phone: string | null
  ordered_at: Date
  created_at: Date
  updated_at: Date
  content_hash: string
  /** Size of the items' JSON document: bounds a page of the order lists by bytes. */
  content_bytes: number
}

export type PersonalizationValue = string | number | boolean | null
export interface StoredFileRef {
  upload_id: string
  role: string | null
}

export interface OrderItemTable {
  id: string
  order_id: string
  organization_id: string
  position: number
  sku: string | null
  name: string
  quantity: number
  price: NullableNumeric
  product_id: string | null
  personalization: Json<Record<string, PersonalizationValue>>
  files: Json<StoredFileRef[]>
}

export interface ProductionOrderTable {
  id: string
  order_id: string
  status: string
  produced_by_partner: ColumnType<boolean, boolean | undefined, boolean>
  created_at: Date
  updated_at: Date
}

export interface ProductionJobTable {
  id: string
  production_order_id: string
  order_item_id: string
  status: string
  created_at: Date
  updated_at: Date
}

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
}

export interface UploadTable {
  id: string
  organization_id: string
  environment: Environment
  filename: string
  storage_key: string
  size_bytes: number | null
  content_type: string | null
  created_at: Date
  url_expires_at: Date
  stored_at: Date | null
  referenced_at: Date | null
  expired_at: Date | null
}

export interface ServiceSecretTable {
  name: string
  value: string
  created_at: Date
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

export const ROLES = ['owner', 'developer', 'viewer'] as const
export type Role = (typeof ROLES)[number]

export interface AccountTable {
  id: string
  /** Lower-cased. */
  email: string
  /** scrypt$N$r$p$salt$hash (base64url). */
  password_hash: string
  created_at: Date
  password_changed_at: Date
}

export interface MemberTable {
  id: string
  organization_id: string
  account_id: string
  role: Role
  created_at: Date
}

export interface InvitationTable {
  id: string
  organization_id: string
  email: string
  role: Role
  token_hash: string
  /** The inviting account; null when the operator invited. */
  invited_by: string | null
  created_at: Date
  expires_at: Date
  accepted_at: Date | null
  revoked_at: Date | null
}

export interface DashboardSessionTable {
  id: string
  account_id: string
  token_hash: string
  created_at: Date
  last_seen_at: Date
  /** The absolute expiry; the idle one is last_seen_at plus the idle limit. */
  expires_at: Date
  ended_at: Date | null
  user_agent: string
  address: string
}

export interface OperatorTable {
  id: string
  account_id: string
  created_at: Date
}

/** An invitation to become an operator: no organization, no role. */
export interface OperatorInvitationTable {
  id: string
  email: string
  token_hash: string
  /** The inviting operator account; null when the operator token invited. */
  invited_by: string | null
  created_at: Date
  expires_at: Date
  accepted_at: Date | null
  revoked_at: Date | null
}

export interface AuditLogTable {
  id: string
  /** The organization the entry concerns; null for the platform's own changes (operators). */
  organization_id: string | null
  actor_account_id: string | null
  /** The actor as shown: an account's email, or `operator token`. */
  actor: string
  /** Done by an operator (an operator account or the operator token): the platform-wide log. */
  by_operator: Generated<boolean>
  action: string
  subject: string
  details: Json<Record<string, unknown>>
  address: string | null
  created_at: Date
}

/** Live orders per organization, UTC day of creation, status and slot (migration 0017). */
export interface OrderDailyStatsTable {
  organization_id: string
  /** YYYY-MM-DD (UTC). */
  day: ColumnType<Date, string, string>
  status: string
  slot: number
  orders: number
  items: number
  /** bigint: read as a string. */
  quantity: ColumnType<string, number, number>
}

export interface UnmatchedSkusTable {
  organization_id: string
  sku: string
  slot: number
  items: number
  orders: number
  last_seen_at: Date
}

export interface DB {
  organizations: OrganizationTable
  api_keys: ApiKeyTable
  products: ProductTable
  orders: OrderTable
  order_items: OrderItemTable
  production_orders: ProductionOrderTable
  production_jobs: ProductionJobTable
  events: EventTable
  order_event_counters: OrderEventCounterTable
  uploads: UploadTable
  service_secrets: ServiceSecretTable
  webhook_endpoints: WebhookEndpointTable
  webhook_deliveries: WebhookDeliveryTable
  webhook_queue: WebhookQueueTable
  webhook_attempts: WebhookAttemptTable
  webhook_replays: WebhookReplayTable
  webhook_replay_events: WebhookReplayEventTable
  service_instances: ServiceInstanceTable
  listen_sessions: ListenSessionTable
  accounts: AccountTable
  members: MemberTable
  invitations: InvitationTable
  dashboard_sessions: DashboardSessionTable
  audit_log: AuditLogTable
  order_daily_stats: OrderDailyStatsTable
  unmatched_skus: UnmatchedSkusTable
  operators: OperatorTable
  operator_invitations: OperatorInvitationTable
}

export type OrganizationRow = Selectable<OrganizationTable>
export type ProductRow = Selectable<ProductTable>
export type OrderRow = Selectable<OrderTable>
export type ApiKeyRow = Selectable<ApiKeyTable>
export type ProductionOrderRow = Selectable<ProductionOrderTable>
export type UploadRow = Selectable<UploadTable>
export type WebhookEndpointRow = Selectable<WebhookEndpointTable>
export type WebhookDeliveryRow = Selectable<WebhookDeliveryTable>
export type WebhookAttemptRow = Selectable<WebhookAttemptTable>
export type WebhookReplayRow = Selectable<WebhookReplayTable>
