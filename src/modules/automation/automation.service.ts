import type { Transaction } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { DB } from '../../db/schema.ts'
import { AppError } from '../../http/errors.ts'
import type { Clock } from '../../lib/clock.ts'
import { isUuid, newId } from '../../lib/ids.ts'
import { type AuditActor, recordAudit } from '../audit/audit.service.ts'
import { checkRule } from './automation.check.ts'
import {
  type CompiledRule,
  compileRules,
  evaluate,
  matches,
  NO_OUTCOME,
  type Outcome,
  type RuleInput,
} from './automation.evaluate.ts'
import {
  deleteRule,
  findRuleSet,
  insertRule,
  linkedSkus,
  lockRuleSet,
  recentLiveOrders,
  reorderRules,
  type StoredRule,
  updateRule,
} from './automation.repo.ts'
import { MAX_RULES, type RuleDefinition } from './automation.rules.ts'

/** The rules an order is evaluated with, and the version they were read at. */
export interface RuleSet {
  version: number
  /** The enabled rules, compiled, in their order. */
  rules: CompiledRule[]
  readsProducts: boolean
}

/** An order as the intake has it before writing it. */
export interface IntakeOrder {
  organizationId: string
  source: string
  currency?: string | null
  total_amount?: number | null
  customer: { email?: string | null }
  items: {
    sku?: string | null
    quantity: number
    personalization?: Record<string, unknown>
    files?: unknown[]
  }[]
}

/** Rules kept in memory per organization: a few thousand organizations at most are active at once. */
const MAX_CACHED = 10_000
/** Orders a dry run reads. */
export const DRY_RUN_ORDERS = 100

const notFound = () => new AppError('not_found', { message: 'No automation rule with this id.' })

/**
 * Automation rules: an organization's list, its changes (owners and
 * developers, each audited, each moving the version the order's statement
 * checks), the dry run, and the evaluation of a live order at intake.
 */
export function createAutomationService(deps: { db: Database; clock: Clock }) {
  const { db, clock } = deps
  const cache = new Map<string, RuleSet>()
  /**
   * Whether a sku has a product, per organization, for rules that read it.
   * Products are never deleted nor renamed, so a link once seen stays true;
   * a sku seen without one is checked again by the order's statement.
   */
  const links = new Map<string, Map<string, boolean>>()

  async function productLinks(organizationId: string, skus: string[]): Promise<Map<string, boolean>> {
    let known = links.get(organizationId)
    if (!known || known.size > MAX_CACHED) {
      if (links.size >= MAX_CACHED) links.clear()
      known = new Map()
      links.set(organizationId, known)
    }
    const missing = skus.filter((sku) => !known.has(sku))
    if (missing.length > 0) {
      const found = await linkedSkus(db, organizationId, missing)
      for (const sku of missing) known.set(sku, found.has(sku))
    }
    return known
  }

  /**
   * Reads that began before a forget must not refill the cache with what the
   * forget dropped: each forget takes a new number, and a read keeps its
   * result only if no forget of its organization came after it began.
   */
  let forgets = 0
  const forgotten = new Map<string, number>()

  function forgetRules(organizationId: string) {
    if (forgotten.size >= MAX_CACHED) forgotten.clear()
    forgotten.set(organizationId, ++forgets)
    cache.delete(organizationId)
  }

  async function ruleSet(organizationId: string, options: { fresh?: boolean } = {}): Promise<RuleSet> {
    const cached = cache.get(organizationId)
    if (cached && !options.fresh) return cached
    const began = forgets
    const { version, rules } = await findRuleSet(db, organizationId)
    const set = { version, ...compileRules(rules) }
    // An entry never goes back in version.
    const current = cache.get(organizationId)
    if ((forgotten.get(organizationId) ?? 0) <= began && (!current || current.version < version)) {
      if (cache.size >= MAX_CACHED) cache.clear()
      cache.set(organizationId, set)
    }
    return set
  }

  function checked(input: unknown): RuleDefinition {
    const { rule, errors } = checkRule(input)
    if (!rule) throw AppError.validation(errors)
    return rule
  }

  /** A change of the rules: the version moves first (serializing changes), then `work` runs on the rules read after it. */
  async function change<T>(
    organizationId: string,
    work: (trx: Transaction<DB>, rules: StoredRule[]) => Promise<T>,
  ): Promise<T> {
    const result = await db.transaction().execute(async (trx) => {
      const { rules } = await lockRuleSet(trx, organizationId)
      return work(trx, rules)
    })
    forgetRules(organizationId)
    return result
  }

  const find = (rules: StoredRule[], id: string) => {
    const rule = isUuid(id) ? rules.find((r) => r.id === id) : undefined
    if (!rule) throw notFound()
    return rule
  }

  const details = (rule: RuleDefinition & { id?: string }) => ({
    name: rule.name,
    enabled: rule.enabled,
    conditions: rule.conditions,
    actions: rule.actions,
  })

  return {
    /** The organization's rules in their order (what the Automation page lists). */
    async list(organizationId: string) {
      return (await findRuleSet(db, organizationId)).rules
    },

    async create(organizationId: string, input: unknown, actor: AuditActor): Promise<StoredRule> {
      const rule = checked(input)
      const id = newId()
      await change(organizationId, async (trx, rules) => {
        if (rules.length >= MAX_RULES) {
          throw AppError.validation([
            {
              code: 'too_many',
              field: 'rules',
              message: `An organization has at most ${MAX_RULES} rules: delete or change one instead.`,
            },
          ])
        }
        await insertRule(trx, { ...rule, id, organizationId, position: rules.length, at: clock.now() })
        await recordAudit(trx, clock, {
          organizationId,
          actor,
          action: 'automation_rule.created',
          subject: id,
          details: { rule_id: id, position: rules.length + 1, ...details(rule) },
        })
      })
      return find((await findRuleSet(db, organizationId)).rules, id)
    },

    async update(organizationId: string, id: string, input: unknown, actor: AuditActor): Promise<StoredRule> {
      const rule = checked(input)
      await change(organizationId, async (trx, rules) => {
        const before = find(rules, id)
        await updateRule(trx, id, rule, clock.now())
        await recordAudit(trx, clock, {
          organizationId,
          actor,
          action: 'automation_rule.updated',
          subject: id,
          details: { rule_id: id, before: details(before), after: details(rule) },
        })
      })
      return find((await findRuleSet(db, organizationId)).rules, id)
    },

    async remove(organizationId: string, id: string, actor: AuditActor): Promise<void> {
      await change(organizationId, async (trx, rules) => {
        const before = find(rules, id)
        await deleteRule(trx, organizationId, id)
        await recordAudit(trx, clock, {
          organizationId,
          actor,
          action: 'automation_rule.deleted',
          subject: id,
          details: { rule_id: id, ...details(before) },
        })
      })
    },

    /** Puts the rules in the order of `ids`, which must name every rule once. */
    async reorder(organizationId: string, ids: string[], actor: AuditActor): Promise<StoredRule[]> {
      await change(organizationId, async (trx, rules) => {
        const known = new Set(rules.map((r) => r.id))
        if (
          ids.length !== rules.length ||
          new Set(ids).size !== ids.length ||
          ids.some((id) => !known.has(id))
        ) {
          throw AppError.validation([
            {
              code: 'invalid_format',
              field: 'rule_ids',
              message: `rule_ids must list each of the organization's ${rules.length} rules once, in their new order.`,
            },
          ])
        }
        await reorderRules(trx, ids, clock.now())
        await recordAudit(trx, clock, {
          organizationId,
          actor,
          action: 'automation_rule.reordered',
          subject: organizationId,
          details: {
            before: rules.map((r) => ({ rule_id: r.id, name: r.name })),
            after: ids.map((id) => ({ rule_id: id, name: rules.find((r) => r.id === id)!.name })),
          },
        })
      })
      return (await findRuleSet(db, organizationId)).rules
    },

    /** Which of the organization's latest live orders a rule (saved or not) would have matched. */
    async dryRun(organizationId: string, input: unknown) {
      const rule = checked(input)
      const orders = await recentLiveOrders(db, organizationId, DRY_RUN_ORDERS)
      const matched = orders.filter((o) => matches(rule, o))
      return { checked: orders.length, matched }
    },

    /**
     * Intake: the rules in force for an organization, from memory (the
     * order's statement checks the version), or `fresh` from the database
     * (a retry after the statement found them outdated).
     */
    ruleSet,

    /** Intake: the statement found newer rules, or a product for a sku taken as unlinked: read both again. */
    forget(organizationId: string) {
      forgetRules(organizationId)
      links.delete(organizationId)
    },

    /**
     * Intake: what the rules do to a live order, as accepted. When a rule
     * reads items' product links, also the skus taken as unlinked: the
     * order's statement writes it only if none of them has a product by then.
     */
    async evaluate(
      set: RuleSet,
      order: IntakeOrder,
    ): Promise<{ outcome: Outcome; unlinked: string[] | null }> {
      if (set.rules.length === 0) return { outcome: NO_OUTCOME, unlinked: null }
      const skus = [
        ...new Set(order.items.map((i) => i.sku).filter((s): s is string => typeof s === 'string')),
      ]
      const links = set.readsProducts ? await productLinks(order.organizationId, skus) : null
      const input: RuleInput = {
        source: order.source,
        currency: order.currency ?? null,
        total: order.total_amount ?? null,
        customerEmail: order.customer.email ?? null,
        items: order.items.map((i) => ({
          sku: i.sku ?? null,
          linked: i.sku != null && links?.get(i.sku) === true,
          quantity: i.quantity,
          personalization: i.personalization ?? {},
          files: i.files?.length ?? 0,
        })),
      }
      const unlinked = links === null ? null : skus.filter((sku) => links.get(sku) !== true)
      return { outcome: evaluate(set.rules, input), unlinked }
    },
  }
}

export type AutomationService = ReturnType<typeof createAutomationService>
