import type { Database } from '../../db/database.ts'
import { type CompiledRule, compileRules } from './automation.evaluate.ts'
import { findRuleSet, linkedSkus } from './automation.repo.ts'

/** The rules an order is evaluated with, and the version they were read at. */
export interface RuleSet {
  version: number
  /** The enabled rules, compiled, in their order. */
  rules: CompiledRule[]
  readsProducts: boolean
}

/** Rules kept in memory per organization: a few thousand organizations at most are active at once. */
const MAX_CACHED = 10_000

/**
 * What intake keeps in memory per organization: its rule set (dropped by a
 * change of the rules, or when the order's statement finds it outdated) and
 * the product links of skus its rules read.
 */
export function createRuleMemory(db: Database) {
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

  return {
    productLinks,
    forgetRules,
    ruleSet,
    /** Drops what is known of the organization's skus' product links. */
    forgetLinks(organizationId: string) {
      links.delete(organizationId)
    },
  }
}
