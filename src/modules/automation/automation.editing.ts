import type { Transaction } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { DB } from '../../db/schema.ts'
import { AppError } from '../../http/errors.ts'
import type { Clock } from '../../lib/clock.ts'
import { isUuid, newId } from '../../lib/ids.ts'
import { type AuditActor, recordAudit } from '../audit/audit.service.ts'
import { checkRule } from './automation.check.ts'
import { matches } from './automation.evaluate.ts'
import {
  deleteRule,
  findRuleSet,
  insertRule,
  lockRuleSet,
  recentLiveOrders,
  reorderRules,
  type StoredRule,
  updateRule,
} from './automation.repo.ts'
import { MAX_RULES, type RuleDefinition } from './automation.rules.ts'

/** Orders a dry run reads. */
export const DRY_RUN_ORDERS = 100

const notFound = () => new AppError('not_found', { message: 'No automation rule with this id.' })

/** The rule the input describes, or its validation errors. */
function checked(input: unknown): RuleDefinition {
  const { rule, errors } = checkRule(input)
  if (!rule) throw AppError.validation(errors)
  return rule
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

/**
 * An organization's rules as its Automation page has them: the list, its
 * changes (owners and developers, each audited, each moving the version the
 * order's statement checks, then `forgetRules`), and the dry run.
 */
export function createRuleEditing(
  deps: { db: Database; clock: Clock },
  forgetRules: (organizationId: string) => void,
) {
  const { db, clock } = deps

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
  }
}
