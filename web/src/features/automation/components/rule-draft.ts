import type { AutomationCatalog, AutomationRule } from '../../../lib/api.ts'
import type { RuleBody } from '../api/automation.ts'

/**
 * A rule as the form holds it while it is edited, and its translation to and
 * from the API's shape. Values are kept as typed; the service checks them and
 * names the field of any problem, so the form does not refuse anything itself
 * beyond what its inputs allow.
 */

export type Catalog = AutomationCatalog
type FieldDef = Catalog['fields'][number]

export interface ConditionDraft {
  field: string
  operator: string
  key: string
  /** text, number, whole number, currency or source. */
  value: string | number
  /** A list of texts (is one of). */
  list: string[]
}
export interface ActionDraft {
  type: string
  value: string
}
export interface RuleDraft {
  name: string
  enabled: boolean
  conditions: ConditionDraft[]
  actions: ActionDraft[]
}

export const fieldOf = (catalog: Catalog, field: string): FieldDef | undefined =>
  catalog.fields.find((f) => f.field === field)

export const valueKind = (catalog: Catalog, c: Pick<ConditionDraft, 'field' | 'operator'>) =>
  fieldOf(catalog, c.field)?.operators.find((o) => o.operator === c.operator)?.value ?? 'none'

/** A new condition on a field: its first operator, no value yet. */
export function newCondition(catalog: Catalog, field = catalog.fields[0]!.field): ConditionDraft {
  const operator = fieldOf(catalog, field)?.operators[0]?.operator ?? ''
  return { field, operator, key: '', value: '', list: [] }
}

export const newAction = (catalog: Catalog, type = catalog.actions[0]!.type): ActionDraft => ({
  type,
  value: catalog.actions.find((a) => a.type === type)?.value === 'priority' ? 'rush' : '',
})

export const emptyDraft = (catalog: Catalog): RuleDraft => ({
  name: '',
  enabled: true,
  conditions: [newCondition(catalog)],
  actions: [newAction(catalog)],
})

export function draftOf(rule: AutomationRule): RuleDraft {
  return {
    name: rule.name,
    enabled: rule.enabled,
    conditions: rule.conditions.map((c) => ({
      field: c.field,
      operator: c.operator,
      key: c.key ?? '',
      value: Array.isArray(c.value) ? '' : (c.value ?? ''),
      list: Array.isArray(c.value) ? c.value : [],
    })),
    actions: rule.actions.map((a) => ({ type: a.type, value: a.value ?? '' })),
  }
}

/** The value as the API takes it; undefined when the operator takes none or nothing was entered. */
function apiValue(catalog: Catalog, c: ConditionDraft): string | number | string[] | undefined {
  const kind = valueKind(catalog, c)
  if (kind === 'none') return undefined
  if (kind === 'texts') return c.list.length > 0 ? c.list : undefined
  if (c.value === '') return undefined
  if (kind === 'number' || kind === 'integer') {
    const n = typeof c.value === 'number' ? c.value : Number(c.value)
    // A partly typed number ("1.") goes as typed: the service names the field.
    return Number.isFinite(n) ? n : c.value
  }
  return String(c.value).trim()
}

export function bodyOfDraft(catalog: Catalog, draft: RuleDraft): RuleBody {
  return {
    name: draft.name,
    enabled: draft.enabled,
    conditions: draft.conditions.map((c) => {
      const value = apiValue(catalog, c)
      return {
        field: c.field,
        operator: c.operator,
        ...(fieldOf(catalog, c.field)?.key ? { key: c.key } : {}),
        ...(value === undefined ? {} : { value }),
      }
    }),
    actions: draft.actions.map((a) => {
      const kind = catalog.actions.find((d) => d.type === a.type)?.value
      return kind === 'none' ? { type: a.type } : { type: a.type, value: a.value }
    }),
  }
}
