/**
 * Automation rules: what a rule may say and how it reads in words. One table
 * (FIELDS) drives checking (automation.check.ts), evaluation
 * (automation.evaluate.ts), the words shown, and the dashboard's form (GET
 * /dashboard/api/automation/fields), so a form can only offer what the
 * service accepts. Nothing runs user text: values are compared, never
 * evaluated.
 */

export const MAX_RULES = 50
export const MAX_CONDITIONS = 10
export const MAX_ACTIONS = 5
export const MAX_NAME = 100
export const MAX_TEXT = 200
export const MAX_LIST = 50
export const MAX_TAG = 40

/** What a condition's value is: nothing, a text, a number, a whole number, a list of texts, or a closed set. */
export type ValueKind = 'none' | 'text' | 'number' | 'integer' | 'texts' | 'currency' | 'source'

const COMPARE = {
  gt: 'greater than',
  gte: 'at least',
  lt: 'less than',
  lte: 'at most',
  eq: 'equal to',
} as const
export type Compare = keyof typeof COMPARE

export interface FieldDefinition {
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
  'item.preflight': {
    label: 'Print check of an item’s files',
    scope: 'item',
    operators: {
      problems: { label: 'found problems', value: 'none' },
      problems_or_warnings: { label: 'found problems or warnings', value: 'none' },
    },
  },
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
