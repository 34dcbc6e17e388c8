import {
  type Action,
  type Compare,
  type Condition,
  describeConditions,
  FIELDS,
  type Rule,
  type RuleDefinition,
} from './automation.rules.ts'

/** The order as a rule reads it: as accepted, before anything is written. */
export interface RuleInput {
  source: string
  currency: string | null
  total: number | null
  customerEmail: string | null
  items: {
    sku: string | null
    linked: boolean
    quantity: number
    personalization: Record<string, unknown>
    files: number
    /**
     * The print check's verdict of the item's files; undefined until their
     * results land (at intake), when a rule that reads it waits.
     */
    preflight?: 'problem' | 'warning' | 'ok' | undefined
  }[]
}

type Item = RuleInput['items'][number]
type Test<T> = (value: T) => boolean

function compareWith(operator: string, expected: number): Test<number> {
  switch (operator as Compare) {
    case 'gt':
      return (n) => n > expected
    case 'gte':
      return (n) => n >= expected
    case 'lt':
      return (n) => n < expected
    case 'lte':
      return (n) => n <= expected
    case 'eq':
      return (n) => n === expected
  }
  return () => false
}

const personalizationText = (value: unknown): string | undefined =>
  value === undefined || value === null || value === '' ? undefined : String(value)

/** An item condition as a test of one item, its values read once. */
function itemTest(c: Condition): Test<Item> {
  switch (c.field) {
    case 'item.sku': {
      const value = c.value as string
      return c.operator === 'equals'
        ? (item) => item.sku === value
        : (item) => item.sku?.startsWith(value) === true
    }
    case 'item.product':
      return c.operator === 'linked' ? (item) => item.linked : (item) => !item.linked
    case 'item.quantity': {
      const holds = compareWith(c.operator, c.value as number)
      return (item) => holds(item.quantity)
    }
    case 'item.files': {
      const holds = compareWith(c.operator, c.value as number)
      return (item) => holds(item.files)
    }
    case 'item.preflight': {
      const flagged = c.operator === 'problems' ? ['problem'] : ['problem', 'warning']
      // Before the results land, an item with files may yet match: the rule waits for them.
      return (item) => (item.preflight === undefined ? item.files > 0 : flagged.includes(item.preflight))
    }
    case 'item.personalization': {
      const key = c.key!
      const text = (item: Item) =>
        Object.hasOwn(item.personalization, key) ? personalizationText(item.personalization[key]) : undefined
      if (c.operator === 'present') return (item) => text(item) !== undefined
      if (c.operator === 'absent') return (item) => text(item) === undefined
      if (c.operator === 'longer_than') {
        const length = c.value as number
        return (item) => {
          const t = text(item)
          return t !== undefined && t.length > length && [...t].length > length
        }
      }
      const values = new Set(c.value as string[])
      return (item) => {
        const t = text(item)
        return t !== undefined && values.has(t)
      }
    }
  }
  return () => false
}

/** An order condition as a test of the order. */
function orderTest(c: Condition): Test<RuleInput> {
  switch (c.field) {
    case 'order.total': {
      const holds = compareWith(c.operator, c.value as number)
      return (order) => order.total !== null && holds(order.total)
    }
    case 'order.currency':
      return (order) => order.currency === c.value
    case 'order.source':
      return (order) => order.source === c.value
    case 'customer.email_domain': {
      const domain = (c.value as string).toLowerCase()
      return (order) => {
        const at = order.customerEmail?.lastIndexOf('@') ?? -1
        return at >= 0 && order.customerEmail!.slice(at + 1).toLowerCase() === domain
      }
    }
  }
  return () => false
}

/** A rule as tests, built once when the rules are read, so an order only runs comparisons. */
export interface CompiledRule {
  rule: Rule
  order: Test<RuleInput>[]
  items: Test<Item>[]
  /** It reads the print check: it waits for the results where they are not known yet. */
  readsPreflight: boolean
}

function compileConditions(conditions: Condition[]): Pick<CompiledRule, 'order' | 'items'> {
  const order: Test<RuleInput>[] = []
  const items: Test<Item>[] = []
  for (const c of conditions) {
    if (FIELDS[c.field].scope === 'item') items.push(itemTest(c))
    else order.push(orderTest(c))
  }
  return { order, items }
}

/** The enabled rules, compiled, and whether any reads items' product links (then the intake looks them up). */
export function compileRules(rules: Rule[]): { rules: CompiledRule[]; readsProducts: boolean } {
  const enabled = rules.filter((r) => r.enabled)
  return {
    rules: enabled.map((rule) => ({
      rule,
      ...compileConditions(rule.conditions),
      readsPreflight: rule.conditions.some((c) => c.field === 'item.preflight'),
    })),
    readsProducts: enabled.some((r) => r.conditions.some((c) => c.field === 'item.product')),
  }
}

function holds(compiled: Pick<CompiledRule, 'order' | 'items'>, order: RuleInput): boolean {
  for (const test of compiled.order) if (!test(order)) return false
  const tests = compiled.items
  if (tests.length === 0) return true
  // Item conditions hold together, on one item.
  for (const item of order.items) {
    let all = true
    for (const test of tests) {
      if (!test(item)) {
        all = false
        break
      }
    }
    if (all) return true
  }
  return false
}

/** Whether every condition of the rule holds (item conditions together, on one item). */
export const matches = (rule: Pick<RuleDefinition, 'conditions'>, order: RuleInput): boolean =>
  holds(compileConditions(rule.conditions), order)

export interface Matched {
  rule_id: string
  name: string
  actions: Action[]
}

/** What the rules did to an order: the matched rules in order, and the outcome of their actions. */
export interface Outcome {
  matched: Matched[]
  hold: { rule_id: string; name: string; reason: string } | null
  partner: boolean
  priority: 'rush' | 'normal'
  tags: string[]
  /**
   * The rules that read the print check and may match once its results are
   * known: they wait for them, and production with them.
   */
  awaiting: Rule[]
}

export const NO_OUTCOME: Outcome = {
  matched: [],
  hold: null,
  partner: false,
  priority: 'normal',
  tags: [],
  awaiting: [],
}

/**
 * Runs the enabled rules in their order. Every matching rule applies all its
 * actions: a hold is kept with the first rule that held; priority is the last
 * matching rule's; tags add up. A rule that reads the print check, on an
 * order whose results are not known yet, waits (`awaiting`) if it may still
 * match, and is left out if it cannot.
 */
export function evaluate(rules: CompiledRule[], order: RuleInput): Outcome {
  let outcome = NO_OUTCOME
  const unknown = order.items.some((i) => i.preflight === undefined)
  for (const compiled of rules) {
    if (!holds(compiled, order)) continue
    const rule = compiled.rule
    if (outcome === NO_OUTCOME) outcome = { ...NO_OUTCOME, matched: [], tags: [], awaiting: [] }
    if (compiled.readsPreflight && unknown) {
      outcome.awaiting.push(rule)
      continue
    }
    outcome.matched.push({ rule_id: rule.id, name: rule.name, actions: rule.actions })
    for (const action of rule.actions) {
      if (action.type === 'hold') {
        outcome.hold ??= { rule_id: rule.id, name: rule.name, reason: describeConditions(rule.conditions) }
      } else if (action.type === 'partner') outcome.partner = true
      else if (action.type === 'priority') outcome.priority = action.value
      else if (!outcome.tags.includes(action.value)) outcome.tags.push(action.value)
    }
  }
  return outcome
}
