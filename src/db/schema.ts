/** The database as Kysely sees it: every table (in tables/, by area) and the row types the code reads. */
import type { Selectable } from 'kysely'
import type {
  AccountTable,
  AuditLogTable,
  DashboardSessionTable,
  InvitationTable,
  MemberTable,
  OperatorInvitationTable,
  OperatorTable,
  PasswordResetTable,
} from './tables/accounts.ts'
import type {
  ApiKeyTable,
  AutomationRuleTable,
  AutomationVersionTable,
  ClosedDayTable,
  MonthlyProductUsageTable,
  MonthlyUsageTable,
  OrderChangesTable,
  OrderDailyStatsTable,
  OrderItemTable,
  OrderTable,
  OrganizationTable,
  ProductionCalendarTable,
  ProductionJobTable,
  ProductionOrderTable,
  ProductTable,
  ServiceSecretTable,
  UnmatchedSkusTable,
  UploadTable,
} from './tables/orders.ts'
import type { FileFactsTable, OrderPreflightTable, PreflightQueueTable } from './tables/preflight.ts'
import type { BatchOrderTable, BatchTable, StationTable } from './tables/production.ts'
import type {
  EventTable,
  ListenSessionTable,
  OrderEventCounterTable,
  ServiceInstanceTable,
  WebhookAttemptTable,
  WebhookDailyOutcomeTable,
  WebhookDeliveryTable,
  WebhookEndpointTable,
  WebhookOutcomeChangeTable,
  WebhookQueueTable,
  WebhookReplayEventTable,
  WebhookReplayTable,
} from './tables/webhooks.ts'

export * from './tables/accounts.ts'
export {
  type ApiRequestTable,
  ENVIRONMENTS,
  type Environment,
  ORDER_SOURCES,
  type OrderSource,
} from './tables/common.ts'

import type { ApiRequestTable } from './tables/common.ts'

export * from './tables/orders.ts'
export * from './tables/preflight.ts'
export * from './tables/production.ts'
export * from './tables/webhooks.ts'

export interface DB {
  organizations: OrganizationTable
  api_keys: ApiKeyTable
  products: ProductTable
  automation_rules: AutomationRuleTable
  automation_versions: AutomationVersionTable
  orders: OrderTable
  order_items: OrderItemTable
  production_orders: ProductionOrderTable
  production_jobs: ProductionJobTable
  production_calendar: ProductionCalendarTable
  closed_days: ClosedDayTable
  batches: BatchTable
  batch_orders: BatchOrderTable
  stations: StationTable
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
  webhook_outcome_changes: WebhookOutcomeChangeTable
  webhook_daily_outcomes: WebhookDailyOutcomeTable
  service_instances: ServiceInstanceTable
  listen_sessions: ListenSessionTable
  accounts: AccountTable
  members: MemberTable
  invitations: InvitationTable
  dashboard_sessions: DashboardSessionTable
  audit_log: AuditLogTable
  order_daily_stats: OrderDailyStatsTable
  unmatched_skus: UnmatchedSkusTable
  order_changes: OrderChangesTable
  monthly_usage: MonthlyUsageTable
  monthly_product_usage: MonthlyProductUsageTable
  operators: OperatorTable
  operator_invitations: OperatorInvitationTable
  password_resets: PasswordResetTable
  api_requests: ApiRequestTable
  file_facts: FileFactsTable
  preflight_queue: PreflightQueueTable
  order_preflight: OrderPreflightTable
}

export type OrganizationRow = Selectable<OrganizationTable>
export type ProductRow = Selectable<ProductTable>
export type OrderRow = Selectable<OrderTable>
export type ApiKeyRow = Selectable<ApiKeyTable>
export type ProductionOrderRow = Selectable<ProductionOrderTable>
export type UploadRow = Selectable<UploadTable>
export type ApiRequestRow = Selectable<ApiRequestTable>
export type WebhookEndpointRow = Selectable<WebhookEndpointTable>
export type WebhookDeliveryRow = Selectable<WebhookDeliveryTable>
export type WebhookAttemptRow = Selectable<WebhookAttemptTable>
export type WebhookReplayRow = Selectable<WebhookReplayTable>
