import type { Database } from '../../db/database.ts'
import type { Clock } from '../../lib/clock.ts'
import { createRuleEditing } from './automation.editing.ts'
import { evaluate, NO_OUTCOME, type Outcome, type RuleInput } from './automation.evaluate.ts'
import { createRuleMemory, type RuleSet } from './automation.memory.ts'

export { DRY_RUN_ORDERS } from './automation.editing.ts'
export type { RuleSet } from './automation.memory.ts'

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

/**
 * Automation rules: an organization's list, its changes (owners and
 * developers, each audited, each moving the version the order's statement
 * checks), the dry run, and the evaluation of a live order at intake.
 */
export function createAutomationService(deps: { db: Database; clock: Clock }) {
  const memory = createRuleMemory(deps.db)

  return {
    ...createRuleEditing(deps, memory.forgetRules),

    /**
     * Intake: the rules in force for an organization, from memory (the
     * order's statement checks the version), or `fresh` from the database
     * (a retry after the statement found them outdated).
     */
    ruleSet: memory.ruleSet,

    /** Intake: the statement found newer rules, or a product for a sku taken as unlinked: read both again. */
    forget(organizationId: string) {
      memory.forgetRules(organizationId)
      memory.forgetLinks(organizationId)
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
      const links = set.readsProducts ? await memory.productLinks(order.organizationId, skus) : null
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
