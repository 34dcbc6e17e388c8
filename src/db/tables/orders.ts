/** Tables of organizations, API keys, products, orders and their production, uploads, and the order aggregates. */
import type { ColumnType } from 'kysely'
import type { Environment, Json, NullableNumeric, OrderSource, ProductionStatus } from './common.ts'

export interface OrganizationTable {
  id: string
  name: string
  created_at: Date
  /** Days the request log keeps bodies (0 to 30; migration 0041). */
  request_body_retention_days: ColumnType<number, number | undefined, number>
  /** Days receivers' answers to settled deliveries are kept (0 to 365). */
  webhook_answer_retention_days: ColumnType<number, number | undefined, number>
  /** Days after an order finished before its customer is erased; null: never. */
  personal_data_retention_days: ColumnType<number | null, number | null | undefined, number | null>
  /** How far the pruning of finished live orders has come (their production order's updated_at). */
  personal_data_pruned_through: ColumnType<Date | null, Date | null | undefined, Date | null>
  /** How far the pruning of receivers' answers has come (the deliveries' created_at). */
  webhook_answers_pruned_through: ColumnType<Date | null, Date | null | undefined, Date | null>
  /** The organization's trace viewer: a URL with {trace_id} (migration 0042); null: none. */
  trace_url_template: ColumnType<string | null, string | null | undefined, string | null>
}

/** The version of an organization's automation rules, moving with every change (migration 0029). */
export interface AutomationVersionTable {
  organization_id: string
  version: ColumnType<string, number, number>
}

/** An organization's automation rules, in position order (migration 0029). */
export interface AutomationRuleTable {
  id: string
  organization_id: string
  position: number
  name: string
  enabled: boolean
  conditions: Json<unknown[]>
  actions: Json<unknown[]>
  created_at: Date
  updated_at: Date
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

/** What a product's production files must be to print well (src/modules/products/print-spec.ts). */
export interface PrintSpec {
  /** The print area. */
  width_mm: number
  height_mm: number
  /** The least effective resolution at the print area. */
  min_dpi: number
  bleed_mm: number
  colour: 'any' | 'rgb' | 'cmyk'
  /** Pages a PDF must have; null: any number. */
  pages: number | null
  /** Whether transparency is allowed. */
  transparency: boolean
}

/** One spec for every file of the product (`default`), or one per file role, or both (a role's wins). */
export interface PrintSpecs {
  default: PrintSpec | null
  roles: Record<string, PrintSpec>
}

export interface ProductTable {
  id: string
  organization_id: string
  sku: string
  name: string
  created_at: Date
  /** What its production files must be to print well (products/print-spec.ts); null: none set. */
  print_spec: Json<PrintSpecs> | null
  /** Working days to make it (migration 0038); null: the production calendar's default. */
  lead_time_days: ColumnType<number | null, number | null | undefined, number | null>
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
  /** Tags set by automation rules (migration 0029). */
  tags: ColumnType<string[], string[] | undefined, string[]>
  /** The automation rules that matched when the order was created, with their actions; null when none did. */
  automation: ColumnType<unknown[] | null, string | null | undefined, string | null>
  /** When the customer's personal data was erased (migration 0041); null: it is kept. */
  erased_at: ColumnType<Date | null, Date | null | undefined, Date | null>
  /** When the items' personalization and file names were erased too. */
  personalization_erased_at: ColumnType<Date | null, Date | null | undefined, Date | null>
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

/** What held a production order for review: the rule, and its conditions in words. */
export interface ProductionHold {
  rule_id: string
  name: string
  reason: string
}

/** An automation rule as it stood when an order arrived, kept while it waits for the order's print check. */
export interface AwaitingRule {
  id: string
  name: string
  enabled: boolean
  conditions: { field: string; operator: string; key?: string; value?: string | number | string[] }[]
  actions: { type: string; value?: string }[]
}

export interface ProductionOrderTable {
  id: string
  order_id: string
  status: ProductionStatus
  produced_by_partner: ColumnType<boolean, boolean | undefined, boolean>
  created_at: Date
  updated_at: Date
  /** rush or normal (an automation rule's priority action). */
  priority: ColumnType<'rush' | 'normal', 'rush' | 'normal' | undefined, 'rush' | 'normal'>
  /** Set while the production order is held for review (a flag beside its status). */
  held_at: ColumnType<Date | null, Date | null | undefined, Date | null>
  /** The rule that held it: `{rule_id, name, reason}`. */
  hold: ColumnType<ProductionHold | null, string | null | undefined, string | null>
  /**
   * The rules that read the print check and wait for its results (migration
   * 0037); while set, production cannot start. Null: none waits.
   */
  awaiting_rules: ColumnType<AwaitingRule[] | null, string | null | undefined, string | null>
  /**
   * When it is due (migration 0038), set by the order fold from the lead
   * times and the calendar. A date: read it with to_char(due_on, 'YYYY-MM-DD')
   * (the driver would make it a local midnight).
   */
  due_on: ColumnType<string | null, string | null | undefined, string | null>
}

/** The platform's production calendar: one row (migration 0038). */
export interface ProductionCalendarTable {
  id: ColumnType<boolean, boolean | undefined, never>
  time_zone: string
  working_weekdays: number[]
  default_lead_time_days: number
  updated_at: Date
}

export interface ClosedDayTable {
  day: ColumnType<Date, string, string>
  note: string
}

export interface ProductionJobTable {
  id: string
  production_order_id: string
  order_item_id: string
  status: string
  created_at: Date
  updated_at: Date
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

/** Changes not yet folded into order_daily_stats and unmatched_skus (migration 0023). */
export interface OrderChangesTable {
  order_id: string
  organization_id: string
  /** Counted in order_daily_stats (test orders are not). */
  live: boolean
  /** The order's creation: its unmatched items are counted in unmatched_skus. */
  created: boolean
  day: ColumnType<Date, string, string>
  status: string
  orders: number
  items: number
  quantity: ColumnType<string, number, number>
  at: Date
}

export interface UnmatchedSkusTable {
  organization_id: string
  sku: string
  slot: number
  items: number
  orders: number
  last_seen_at: Date
}

/** Live orders per organization and UTC month of creation, for billing (migration 0028). */
export interface MonthlyUsageTable {
  organization_id: string
  /** The month's first day, YYYY-MM-01. */
  month: ColumnType<Date, string, string>
  orders: number
  items: number
  /** bigint: read as a string. */
  quantity: ColumnType<string, number, number>
}

/** The same per linked product (migration 0028). */
export interface MonthlyProductUsageTable {
  organization_id: string
  month: ColumnType<Date, string, string>
  product_id: string
  orders: number
  items: number
  quantity: ColumnType<string, number, number>
}
