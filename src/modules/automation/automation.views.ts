import type { Rule } from './automation.dashboard.schemas.ts'
import type { StoredRule } from './automation.repo.ts'
import {
  ACTIONS,
  describeConditions,
  FIELDS,
  MAX_ACTIONS,
  MAX_CONDITIONS,
  MAX_RULES,
} from './automation.rules.ts'

/** A stored rule as the dashboard and /admin/v1 show it. */
export const toRule = (r: StoredRule): Rule => ({
  id: r.id,
  position: r.position + 1,
  name: r.name,
  enabled: r.enabled,
  conditions: r.conditions,
  actions: r.actions,
  description: describeConditions(r.conditions),
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
})

/** The organization's rules as the dashboard, the console and /admin/v1 list them. */
export const ruleList = (rules: StoredRule[]) => ({ rules: rules.map(toRule), max_rules: MAX_RULES })

/** What a rule can say, for the page's form. */
export const fieldCatalog = () => ({
  fields: Object.entries(FIELDS).map(([field, d]) => ({
    field,
    label: d.label,
    scope: d.scope,
    key: 'key' in d,
    operators: Object.entries(d.operators).map(([operator, o]) => ({
      operator,
      label: o.label,
      value: o.value,
    })),
  })),
  actions: Object.entries(ACTIONS).map(([type, a]) => ({ type, label: a.label, value: a.value })),
  limits: { rules: MAX_RULES, conditions: MAX_CONDITIONS, actions: MAX_ACTIONS },
})
