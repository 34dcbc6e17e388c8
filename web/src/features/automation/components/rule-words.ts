import type { AutomationCatalog, AutomationRule } from '../../../lib/api.ts'

/** A rule's actions in words, with the labels the service gives them: `Hold for review; Tag "large"`. */
export function describeActions(actions: AutomationRule['actions'], catalog?: AutomationCatalog): string {
  return actions
    .map((a) => {
      const label = catalog?.actions.find((c) => c.type === a.type)?.label ?? a.type
      if (a.type === 'tag') return `${label} "${a.value}"`
      return a.value === undefined ? label : `${label}: ${a.value}`
    })
    .join('; ')
}
