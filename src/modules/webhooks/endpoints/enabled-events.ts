import { AppError, type ValidationEntry } from '../../../http/errors.ts'
import { EVENT_TYPES } from '../outbox/events.ts'

/** What an endpoint's enabled_events may list: every type but ping (which always reaches it), or '*' alone. */
export const FILTERABLE_EVENT_TYPES = EVENT_TYPES.filter((type) => type !== 'ping')
export const ALL_EVENTS = '*'
/** Bounds the request body; duplicates are allowed (and collapsed), so a little above the number of types. */
export const MAX_ENABLED_EVENTS = 20

const known = new Set<string>(FILTERABLE_EVENT_TYPES)
const allowed = [ALL_EVENTS, ...FILTERABLE_EVENT_TYPES].map((t) => JSON.stringify(t)).join(', ')

/**
 * An enabled_events list as stored, and what is wrong with it (entries named
 * in bracket notation, `enabled_events[1]`). Repeated types count once, in
 * the order first given; '*' must be the only entry. The schema already
 * keeps the list non-empty and its entries short strings.
 */
export function parseEnabledEvents(list: readonly string[]): { events: string[]; errors: ValidationEntry[] } {
  const errors: ValidationEntry[] = []
  const entry = (n: number, why: string): ValidationEntry => ({
    code: 'invalid_format',
    field: `enabled_events[${n}]`,
    message: `enabled_events[${n}] ${why}`,
  })
  list.forEach((type, n) => {
    if (type === ALL_EVENTS) {
      if (list.some((other) => other !== ALL_EVENTS)) {
        errors.push(entry(n, 'is "*", which stands for every type: send it alone, or list the types'))
      }
    } else if (type === 'ping') {
      errors.push(entry(n, 'is "ping", which always reaches the endpoint: leave it out'))
    } else if (!known.has(type)) {
      errors.push(entry(n, `must be one of ${allowed}`))
    }
  })
  return { events: [...new Set(list)], errors }
}

/** The list as stored, or 422 validation_failed naming each bad entry. */
export function checkEnabledEvents(list: readonly string[]): string[] {
  const { events, errors } = parseEnabledEvents(list)
  if (errors.length > 0) throw AppError.validation(errors)
  return events
}
