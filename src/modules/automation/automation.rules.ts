import type { ValidationEntry } from '../../http/errors.ts'

/**
 * Automation rules: what a rule may say, how it is checked, how it reads an
 * order and what it does. One table (FIELDS) drives all four, and the
 * dashboard's form reads it too (GET /dashboard/api/automation/fields), so a
 * form can only offer what the service accepts. Nothing here runs user text:
 * values are compared, never evaluated.
 */

export const MAX_RULES = 50
export const MAX_CONDITIONS = 10
export const MAX_ACTIONS = 5
const MAX_NAME = 100
const MAX_TEXT = 200
const MAX_LIST = 50
const MAX_TAG = 40

/** What a condition's value is: nothing, a text, a number, a whole number, a list of texts, or a closed set. */
export type ValueKind = 'none' | 'text' | 'number' | 'integer' | 'texts' | 'currency' | 'source'

const COMPARE = {
  gt: 'greater than',
  gte: 'at least',
  lt: 'less than',
  lte: 'at most',
  eq: 'equal to',
} as const
type Compare = keyof typeof COMPARE

interface FieldDefinition {
  label: string
  /** Item conditions hold when one item satisfies all of the rule's item conditions together. */
  scope: 'item' | 'order'
  /** item.personalization names the personalization field it reads. */
  key?: true
  operators: Record<string, { label: string; value: ValueKind }>
}

const compare = (value: 'number' | 'integer') =>
  Object.fromEntries(Object.entries(COMPARE).map(([op, label]) => [op, { label, value }]))

export const FIELDS = {
  'item.sku': {
    label: 'Item SKU',
    scope: 'item',
    operators: {
      equals: { label: 'is', value: 'text' },
      starts_with: { label: 'starts with', value: 'text' },
    },
  },
  'item.product': {
    label: 'Item product',
    scope: 'item',
    operators: {
      linked: { label: 'is linked to a product', value: 'none' },
      not_linked: { label: 'is not linked to a product', value: 'none' },
    },
  },
  'item.quantity': { label: 'Item quantity', scope: 'item', operators: compare('integer') },
  'item.personalization': {
    label: 'Personalization field',
    scope: 'item',
    key: true,
    operators: {
      present: { label: 'is present', value: 'none' },
      absent: { label: 'is absent', value: 'none' },
      longer_than: { label: 'is longer than (characters)', value: 'integer' },
      one_of: { label: 'is one of', value: 'texts' },
    },
  },
  'item.files': { label: 'Number of files on an item', scope: 'item', operators: compare('integer') },
  'order.total': { label: 'Order total', scope: 'order', operators: compare('number') },
  'order.currency': {
    label: 'Currency',
    scope: 'order',
    operators: { equals: { label: 'is', value: 'currency' } },
  },
  'customer.email_domain': {
    label: 'Customer email domain',
    scope: 'order',
    operators: { equals: { label: 'is', value: 'text' } },
  },
  'order.source': {
    label: 'Source',
    scope: 'order',
    operators: { equals: { label: 'is', value: 'source' } },
  },
} as const satisfies Record<string, FieldDefinition>

export type ConditionField = keyof typeof FIELDS

export const ACTIONS = {
  hold: { label: 'Hold for review', value: 'none' },
  partner: { label: 'Produce by partner', value: 'none' },
  priority: { label: 'Priority', value: 'priority' },
  tag: { label: 'Tag', value: 'tag' },
} as const
export type ActionType = keyof typeof ACTIONS

export type ConditionValue = string | number | string[]
export interface Condition {
  field: ConditionField
  operator: string
  key?: string
  value?: ConditionValue
}
export type Action =
  | { type: 'hold' }
  | { type: 'partner' }
  | { type: 'priority'; value: 'rush' | 'normal' }
  | { type: 'tag'; value: string }

export interface RuleDefinition {
  name: string
  enabled: boolean
  conditions: Condition[]
  actions: Action[]
}

export interface Rule extends RuleDefinition {
  id: string
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)
const typeName = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v)
const oneOf = (values: readonly string[]) => values.join(', ')

/**
 * Checks a rule as the dashboard sends it: every problem as an entry of
 * validation_failed naming its field (`conditions[2].operator`). Returns the
 * rule in its stored form (unknown members refused, texts trimmed).
 */
export function checkRule(input: unknown): { rule?: RuleDefinition; errors: ValidationEntry[] } {
  const errors: ValidationEntry[] = []
  const fail = (code: ValidationEntry['code'], field: string, message: string) => {
    errors.push({ code, field, message })
  }
  if (!isObject(input)) {
    fail('invalid_type', 'rule', `The rule must be an object, not ${typeName(input)}.`)
    return { errors }
  }
  const known = new Set(['name', 'enabled', 'conditions', 'actions'])
  for (const k of Object.keys(input)) {
    if (!known.has(k))
      fail('unknown_field', k, `${k} is not a field of a rule (name, enabled, conditions, actions).`)
  }
  const name = typeof input.name === 'string' ? input.name.trim() : input.name
  if (name === undefined) fail('required', 'name', 'name is required.')
  else if (typeof name !== 'string')
    fail('invalid_type', 'name', `name must be a string, not ${typeName(name)}.`)
  else if (name.length === 0) fail('too_short', 'name', 'name must not be empty.')
  else if (name.length > MAX_NAME) fail('too_long', 'name', `name must be at most ${MAX_NAME} characters.`)
  const enabled = input.enabled ?? true
  if (typeof enabled !== 'boolean') {
    fail('invalid_type', 'enabled', `enabled must be true or false, not ${typeName(enabled)}.`)
  }

  const conditions: Condition[] = []
  const rawConditions = input.conditions ?? []
  if (!Array.isArray(rawConditions)) {
    fail('invalid_type', 'conditions', `conditions must be an array, not ${typeName(rawConditions)}.`)
  } else if (rawConditions.length > MAX_CONDITIONS) {
    fail(
      'too_many',
      'conditions',
      `A rule has at most ${MAX_CONDITIONS} conditions (this one has ${rawConditions.length}).`,
    )
  } else {
    rawConditions.forEach((raw, n) => {
      const condition = checkCondition(raw, `conditions.${n}`, fail)
      if (condition) conditions.push(condition)
    })
  }

  const actions: Action[] = []
  const rawActions = input.actions
  if (rawActions === undefined) fail('required', 'actions', 'actions is required: a rule does 1 to 5 things.')
  else if (!Array.isArray(rawActions)) {
    fail('invalid_type', 'actions', `actions must be an array, not ${typeName(rawActions)}.`)
  } else if (rawActions.length === 0) fail('too_few', 'actions', 'A rule has at least one action.')
  else if (rawActions.length > MAX_ACTIONS) {
    fail(
      'too_many',
      'actions',
      `A rule has at most ${MAX_ACTIONS} actions (this one has ${rawActions.length}).`,
    )
  } else {
    rawActions.forEach((raw, n) => {
      const action = checkAction(raw, `actions.${n}`, fail)
      if (action) actions.push(action)
    })
  }
  if (errors.length > 0) return { errors }
  return { rule: { name: name as string, enabled: enabled as boolean, conditions, actions }, errors }
}

type Fail = (code: ValidationEntry['code'], field: string, message: string) => void

function checkCondition(raw: unknown, at: string, fail: Fail): Condition | undefined {
  if (!isObject(raw)) {
    fail('invalid_type', at, `${at} must be an object with field, operator and value, not ${typeName(raw)}.`)
    return undefined
  }
  for (const k of Object.keys(raw)) {
    if (!['field', 'operator', 'key', 'value'].includes(k)) {
      fail(
        'unknown_field',
        `${at}.${k}`,
        `${at}.${k} is not part of a condition (field, operator, key, value).`,
      )
    }
  }
  const field = raw.field
  if (typeof field !== 'string' || !Object.hasOwn(FIELDS, field)) {
    fail(
      field === undefined ? 'required' : 'invalid_format',
      `${at}.field`,
      `${at}.field must be one of ${oneOf(Object.keys(FIELDS))}.`,
    )
    return undefined
  }
  const definition: FieldDefinition = FIELDS[field as ConditionField]
  const operator = raw.operator
  if (typeof operator !== 'string' || !Object.hasOwn(definition.operators, operator)) {
    fail(
      operator === undefined ? 'required' : 'invalid_format',
      `${at}.operator`,
      `${at}.operator must be one of ${oneOf(Object.keys(definition.operators))} for ${field}.`,
    )
    return undefined
  }
  const condition: Condition = { field: field as ConditionField, operator }
  if (definition.key) {
    const key = raw.key
    if (typeof key !== 'string' || key.length === 0 || key.length > MAX_TEXT) {
      fail(
        key === undefined ? 'required' : 'invalid_type',
        `${at}.key`,
        `${at}.key must name the personalization field (1 to ${MAX_TEXT} characters).`,
      )
      return undefined
    }
    condition.key = key
  } else if (raw.key !== undefined) {
    fail('unknown_field', `${at}.key`, `${at}.key is only read by item.personalization.`)
    return undefined
  }
  const kind = definition.operators[operator]!.value
  const value = checkValue(kind, raw.value, `${at}.value`, fail)
  if (value === null) return undefined
  if (value !== undefined) condition.value = value
  return condition
}

/** The value as stored; undefined when the operator takes none; null when refused. */
function checkValue(
  kind: ValueKind,
  value: unknown,
  at: string,
  fail: Fail,
): ConditionValue | undefined | null {
  if (kind === 'none') {
    if (value === undefined) return undefined
    fail('unknown_field', at, `${at} is not read by this operator: leave it out.`)
    return null
  }
  if (value === undefined) {
    fail('required', at, `${at} is required for this operator.`)
    return null
  }
  switch (kind) {
    case 'text': {
      if (typeof value !== 'string') break
      const text = value.trim()
      if (text.length === 0 || text.length > MAX_TEXT) {
        fail(text.length === 0 ? 'too_short' : 'too_long', at, `${at} must be 1 to ${MAX_TEXT} characters.`)
        return null
      }
      return text
    }
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) break
      return value
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) break
      if (value < 0 || value > 1_000_000_000) {
        fail(value < 0 ? 'too_small' : 'too_large', at, `${at} must be a whole number from 0 to 1000000000.`)
        return null
      }
      return value
    case 'texts': {
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) break
      const list = [...new Set((value as string[]).map((v) => v.trim()))]
      if (
        list.length === 0 ||
        list.length > MAX_LIST ||
        list.some((v) => v.length === 0 || v.length > MAX_TEXT)
      ) {
        fail('invalid_format', at, `${at} must list 1 to ${MAX_LIST} values of 1 to ${MAX_TEXT} characters.`)
        return null
      }
      return list
    }
    case 'currency':
      if (typeof value !== 'string') break
      if (!/^[A-Z]{3}$/.test(value)) {
        fail('invalid_format', at, `${at} must be a three-letter ISO 4217 code in capitals, such as EUR.`)
        return null
      }
      return value
    case 'source':
      if (typeof value !== 'string') break
      if (value !== 'api' && value !== 'shop') {
        fail('invalid_format', at, `${at} must be api or shop.`)
        return null
      }
      return value
  }
  const expected = {
    text: 'a string',
    number: 'a number',
    integer: 'a whole number',
    texts: 'an array of strings',
  }
  fail(
    'invalid_type',
    at,
    `${at} must be ${expected[kind as keyof typeof expected] ?? 'a string'}, not ${typeName(value)}.`,
  )
  return null
}

function checkAction(raw: unknown, at: string, fail: Fail): Action | undefined {
  if (!isObject(raw)) {
    fail('invalid_type', at, `${at} must be an object with a type, not ${typeName(raw)}.`)
    return undefined
  }
  const type = raw.type
  if (typeof type !== 'string' || !Object.hasOwn(ACTIONS, type)) {
    fail(
      type === undefined ? 'required' : 'invalid_format',
      `${at}.type`,
      `${at}.type must be one of ${oneOf(Object.keys(ACTIONS))}.`,
    )
    return undefined
  }
  for (const k of Object.keys(raw)) {
    const allowed = type === 'priority' || type === 'tag' ? ['type', 'value'] : ['type']
    if (!allowed.includes(k)) {
      fail('unknown_field', `${at}.${k}`, `${at}.${k} is not read by the ${type} action.`)
      return undefined
    }
  }
  if (type === 'priority') {
    if (raw.value !== 'rush' && raw.value !== 'normal') {
      fail(
        raw.value === undefined ? 'required' : 'invalid_format',
        `${at}.value`,
        `${at}.value must be rush or normal.`,
      )
      return undefined
    }
    return { type, value: raw.value }
  }
  if (type === 'tag') {
    const tag = typeof raw.value === 'string' ? raw.value.trim() : raw.value
    if (typeof tag !== 'string') {
      fail(
        tag === undefined ? 'required' : 'invalid_type',
        `${at}.value`,
        `${at}.value must be the tag, a string.`,
      )
      return undefined
    }
    if (!TAG.test(tag)) {
      fail(
        'invalid_format',
        `${at}.value`,
        `${at}.value must be 1 to ${MAX_TAG} letters, digits, spaces, hyphens or underscores.`,
      )
      return undefined
    }
    return { type, value: tag }
  }
  return { type: type as 'hold' | 'partner' }
}

const TAG = new RegExp(`^[\\p{L}\\p{N}][\\p{L}\\p{N} _-]{0,${MAX_TAG - 1}}$`, 'u')

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
    rules: enabled.map((rule) => ({ rule, ...compileConditions(rule.conditions) })),
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
}

export const NO_OUTCOME: Outcome = { matched: [], hold: null, partner: false, priority: 'normal', tags: [] }

/**
 * Runs the enabled rules in their order. Every matching rule applies all its
 * actions: a hold is kept with the first rule that held; priority is the last
 * matching rule's; tags add up.
 */
export function evaluate(rules: CompiledRule[], order: RuleInput): Outcome {
  let outcome = NO_OUTCOME
  for (const compiled of rules) {
    if (!holds(compiled, order)) continue
    const rule = compiled.rule
    if (outcome === NO_OUTCOME) outcome = { ...NO_OUTCOME, matched: [], tags: [] }
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

/** A condition in words: "Item SKU starts with MUG". */
export function describeCondition(c: Condition): string {
  const definition: FieldDefinition = FIELDS[c.field]
  const subject = c.key === undefined ? definition.label : `${definition.label} "${c.key}"`
  const operator = definition.operators[c.operator]!.label
  const value = Array.isArray(c.value) ? c.value.join(', ') : c.value
  return value === undefined ? `${subject} ${operator}` : `${subject} ${operator} ${value}`
}

export const describeConditions = (conditions: Condition[]) =>
  conditions.length === 0 ? 'Every live order' : conditions.map(describeCondition).join('; ')

/** An action in words: "held this order for review". */
export function describeAction(action: Action): string {
  switch (action.type) {
    case 'hold':
      return 'held this order for review'
    case 'partner':
      return 'sent this order to a partner'
    case 'priority':
      return action.value === 'rush' ? 'marked this order rush' : 'set this order to normal priority'
    case 'tag':
      return `tagged this order "${action.value}"`
  }
}
