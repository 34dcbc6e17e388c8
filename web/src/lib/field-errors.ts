import { ApiError, type FieldError } from './api.ts'

/**
 * What a form calls each field the service may name in errors[]: the API's
 * path (`items.0.quantity`) to the page's word for it ("Quantity"). A function
 * for paths made at run time (`items.0.personalization.Greeting`).
 */
export type FieldLabels = Record<string, string> | ((field: string) => string | undefined)

/** A refusal as a form shows it: a message beside each field it names, the rest above the form. */
export interface Refusal {
  /** By the form's field path: the message, in the page's words. */
  fields: Record<string, string>
  /** Problems that name no field of the form (or the whole answer's message), in words. */
  others: string[]
  /** The codes for support: the answer's, each problem's with its field, and the request id. */
  support?: string
}

const labelOf = (labels: FieldLabels, field: string) =>
  typeof labels === 'function' ? labels(field) : labels[field]

/** The service's message with its leading field path ("items.0.quantity must be …") put in the page's words. */
export function inWords(problem: FieldError, label: string): string {
  const { field, message } = problem
  const rest = field && message.startsWith(`${field} `) ? message.slice(field.length + 1) : message
  return rest === message ? message : `${label} ${rest}`
}

/**
 * A failed request read for a form: each of the service's problems that names
 * a field of the form goes beside that field, as does a refusal about one
 * field (`byCode`); others, and any refusal that is not about fields, stay
 * above. Nothing at all for no error.
 */
export function readRefusal(
  error: unknown,
  labels: FieldLabels,
  /** Refusals that name no field but are about one (`member_exists` is about the email): code to field. */
  byCode: Record<string, string> = {},
): Refusal | undefined {
  if (!error) return undefined
  if (!(error instanceof ApiError))
    return { fields: {}, others: [error instanceof Error ? error.message : String(error)] }
  const fields: Record<string, string> = {}
  const others: string[] = []
  for (const problem of error.errors) {
    const label = problem.field === undefined ? undefined : labelOf(labels, problem.field)
    if (label && problem.field) fields[problem.field] ??= inWords(problem, label)
    else others.push(problem.message)
  }
  // A refusal with no list of problems (a conflict, a refused URL) may still name its field.
  if (error.errors.length === 0) {
    const field = error.field ?? byCode[error.code]
    if (field && labelOf(labels, field)) fields[field] = error.message
    else others.push(error.message)
  }
  const codes = [
    error.code,
    ...error.errors.map((p) => [p.code, p.field].filter(Boolean).join(' ')),
    error.requestId && `request ${error.requestId}`,
  ].filter(Boolean)
  return { fields, others, support: codes.join(' · ') }
}

/** The dashboard's own check of a field before sending: the message in the same words as the service's, or none. */
export function checkLength(label: string, value: string, limits: { min?: number; max?: number }) {
  const length = [...value].length
  if (limits.min !== undefined && length < limits.min) {
    return limits.min === 1 ? `${label} is required` : `${label} must be at least ${limits.min} characters`
  }
  if (limits.max !== undefined && length > limits.max) {
    return `${label} must be at most ${limits.max.toLocaleString('en-US')} character${limits.max === 1 ? '' : 's'}`
  }
  return undefined
}

/** A whole number between min and max, or the message saying what it must be. */
export function checkWholeNumber(
  label: string,
  value: string | number,
  limits: { min: number; max: number },
) {
  const n = typeof value === 'number' ? value : Number(String(value).trim())
  if (String(value).trim() === '' || !Number.isInteger(n)) return `${label} must be a whole number`
  if (n < limits.min) return `${label} must be at least ${limits.min.toLocaleString('en-US')}`
  if (n > limits.max) return `${label} must be at most ${limits.max.toLocaleString('en-US')}`
  return undefined
}

/** Only the messages that are set: a form's own checks, ready to show, or none (send the form). */
export function problems(checks: Record<string, string | undefined>): Record<string, string> | undefined {
  const found = Object.fromEntries(Object.entries(checks).filter(([, m]) => m !== undefined)) as Record<
    string,
    string
  >
  return Object.keys(found).length > 0 ? found : undefined
}

/** The messages without one field's: it changed, so its message no longer applies. */
export function cleared(messages: Record<string, string>, field: string): Record<string, string> {
  const { [field]: _changed, ...rest } = messages
  return rest
}
