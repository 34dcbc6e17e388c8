import { sql, type Transaction } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { DB } from '../../db/schema.ts'
import type { RuleInput } from './automation.evaluate.ts'
import type { Action, Condition, Rule, RuleDefinition } from './automation.rules.ts'

/**
 * automation_rules and automation_versions (migration 0029). Every change of
 * an organization's rules first moves its version (locking its version row,
 * so changes of one organization's rules run one after the other), then
 * changes the rules, in one transaction.
 */

export interface StoredRule extends Rule {
  position: number
  created_at: Date
  updated_at: Date
}

type RuleRow = {
  id: string
  position: number
  name: string
  enabled: boolean
  conditions: unknown
  actions: unknown
  created_at: Date
  updated_at: Date
}
const toRule = (r: RuleRow): StoredRule => ({
  id: r.id,
  position: r.position,
  name: r.name,
  enabled: r.enabled,
  conditions: r.conditions as Condition[],
  actions: r.actions as Action[],
  created_at: r.created_at,
  updated_at: r.updated_at,
})

/**
 * The organization's rules in their order, with the version they were read at
 * (0: never changed). One statement, so one snapshot: two queries on two
 * connections could pair a new version with older rules, which the order's
 * statement, checking the version alone, would then accept.
 */
export async function findRuleSet(
  db: Database,
  organizationId: string,
): Promise<{ version: number; rules: StoredRule[] }> {
  const result = await sql<{ version: string } & { [K in keyof RuleRow]: RuleRow[K] | null }>`
    select v.version, r.id, r.position, r.name, r.enabled, r.conditions, r.actions, r.created_at, r.updated_at
    from (select coalesce((select version from automation_versions where organization_id = ${organizationId}::uuid), 0)
      as version) v
    left join automation_rules r on r.organization_id = ${organizationId}::uuid
    order by r.position`.execute(db)
  const rows = result.rows
  return {
    version: Number(rows[0]?.version ?? 0),
    rules: rows.filter((r): r is typeof r & RuleRow => r.id !== null).map(toRule),
  }
}

/** The same in one transaction's snapshot (a change reads what it changes after moving the version). */
export async function lockRuleSet(trx: Transaction<DB>, organizationId: string) {
  const moved = await sql<{ version: string }>`
    insert into automation_versions (organization_id, version) values (${organizationId}::uuid, 1)
    on conflict (organization_id) do update set version = automation_versions.version + 1
    returning version`.execute(trx)
  const rules = await trx
    .selectFrom('automation_rules')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .orderBy('position')
    .execute()
  return { version: Number(moved.rows[0]!.version), rules: rules.map(toRule) }
}

export async function insertRule(
  trx: Transaction<DB>,
  rule: RuleDefinition & { id: string; organizationId: string; position: number; at: Date },
): Promise<void> {
  await trx
    .insertInto('automation_rules')
    .values({
      id: rule.id,
      organization_id: rule.organizationId,
      position: rule.position,
      name: rule.name,
      enabled: rule.enabled,
      conditions: JSON.stringify(rule.conditions),
      actions: JSON.stringify(rule.actions),
      created_at: rule.at,
      updated_at: rule.at,
    })
    .execute()
}

export async function updateRule(
  trx: Transaction<DB>,
  id: string,
  rule: RuleDefinition,
  at: Date,
): Promise<void> {
  await trx
    .updateTable('automation_rules')
    .set({
      name: rule.name,
      enabled: rule.enabled,
      conditions: JSON.stringify(rule.conditions),
      actions: JSON.stringify(rule.actions),
      updated_at: at,
    })
    .where('id', '=', id)
    .execute()
}

/** Deletes a rule and closes the gap in the positions after it. */
export async function deleteRule(trx: Transaction<DB>, organizationId: string, id: string): Promise<void> {
  const deleted = await trx
    .deleteFrom('automation_rules')
    .where('id', '=', id)
    .returning('position')
    .executeTakeFirst()
  if (!deleted) return
  await trx
    .updateTable('automation_rules')
    .set((eb) => ({ position: eb('position', '-', 1) }))
    .where('organization_id', '=', organizationId)
    .where('position', '>', deleted.position)
    .execute()
}

/** Gives the rules the positions of their ids' order (the unique position is checked at commit). */
export async function reorderRules(trx: Transaction<DB>, ids: string[], at: Date): Promise<void> {
  if (ids.length === 0) return
  await sql`
    update automation_rules r set position = o.position - 1, updated_at = ${at}::timestamptz
    from unnest(${ids}::uuid[]) with ordinality as o (id, position)
    where r.id = o.id and r.position <> o.position - 1`.execute(trx)
}

/** The organization's products among these skus (a rule reading the product link). */
export async function linkedSkus(db: Database, organizationId: string, skus: string[]): Promise<Set<string>> {
  if (skus.length === 0) return new Set()
  const rows = await db
    .selectFrom('products')
    .select('sku')
    .where('organization_id', '=', organizationId)
    .where('sku', 'in', skus)
    .execute()
  return new Set(rows.map((r) => r.sku))
}

export interface RecentOrder extends RuleInput {
  id: string
  external_order_id: string
  created_at: Date
  status: string
}

/** The organization's latest live orders as a rule reads them (a dry run). */
export async function recentLiveOrders(
  db: Database,
  organizationId: string,
  limit: number,
): Promise<RecentOrder[]> {
  const result = await sql<{
    id: string
    external_order_id: string
    created_at: Date
    status: string
    source: string
    currency: string | null
    total_amount: string | null
    customer_email: string | null
    items: {
      sku: string | null
      linked: boolean
      quantity: number
      personalization: Record<string, unknown>
      files: number
    }[]
    preflight: ('problem' | 'warning' | 'ok')[] | null
  }>`
    select o.id, o.external_order_id, o.created_at, o.status, o.source, o.currency, o.total_amount::text,
      o.customer_email, (select pf.items from order_preflight pf where pf.order_id = o.id) as preflight,
      (select coalesce(json_agg(json_build_object('sku', i.sku, 'linked', i.product_id is not null,
          'quantity', i.quantity, 'personalization', i.personalization,
          'files', json_array_length(i.files::json)) order by i.position), '[]'::json)
        from order_items i where i.order_id = o.id) as items
    from orders o
    where o.organization_id = ${organizationId}::uuid and o.environment = 'live'
    order by o.created_at desc, o.id desc
    limit ${limit}`.execute(db)
  return result.rows.map((r) => ({
    id: r.id,
    external_order_id: r.external_order_id,
    created_at: r.created_at,
    status: r.status,
    source: r.source,
    currency: r.currency,
    total: r.total_amount === null ? null : Number(r.total_amount),
    customerEmail: r.customer_email,
    // Items whose files are not checked (yet) count as without problems.
    items: r.items.map((item, n) => ({ ...item, preflight: r.preflight?.[n] ?? 'ok' })),
  }))
}
