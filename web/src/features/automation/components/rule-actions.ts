import type { AutomationCatalog, AutomationRule } from '../../../lib/api.ts'

/**
 * The actions' names where the catalog (GET /automation/fields, members only)
 * is not read: the operator's console.
 */
const LABELS: Record<string, string> = {
  hold: 'Hold for review',
  partner: 'Produce by partner',
  priority: 'Priority',
  tag: 'Tag',
}

/** A rule's actions in words: `Hold for review; Tag "large"`. */
export function describeActions(actions: AutomationRule['actions'], catalog?: AutomationCatalog): string {
  return actions
    .map((a) => {
      const label = catalog?.actions.find((c) => c.type === a.type)?.label ?? LABELS[a.type] ?? a.type
      if (a.type === 'tag') return `${label} "${a.value}"`
      return a.value === undefined ? label : `${label}: ${a.value}`
    })
    .join('; ')
}
