import { useState } from 'react'
import { cleared, type FieldLabels, problems, readRefusal } from './field-errors.ts'

/**
 * A form's messages beside its fields: its own checks (`checked`, set before
 * sending, a field's cleared when it changes) first, then the service's
 * refusal read with the form's labels.
 */
export function useFieldMessages(error: unknown, labels: FieldLabels, byCode?: Record<string, string>) {
  const [checked, setChecked] = useState<Record<string, string>>({})
  const refusal = readRefusal(error, labels, byCode)
  return {
    refusal,
    message: (field: string) => checked[field] ?? refusal?.fields[field],
    /** Runs the form's checks: true when they pass and the form may be sent. */
    check: (found: Record<string, string | undefined>) => {
      const messages = problems(found)
      setChecked(messages ?? {})
      return messages === undefined
    },
    changed: (field: string) => setChecked((c) => cleared(c, field)),
    clear: () => setChecked({}),
  }
}
