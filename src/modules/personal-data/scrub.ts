import type { PersonalizationValue } from '../../db/schema.ts'

/** What an erased name and every erased personalization value read. */
export const ERASED = 'erased'

/** A customer as an erased order shows it. */
export const ERASED_CUSTOMER = { name: ERASED, email: null, phone: null }

/** Every value of an item's personalization erased; its field names (the product's) stay. */
export function erasedPersonalization(
  personalization: Record<string, PersonalizationValue>,
): Record<string, PersonalizationValue> {
  return Object.fromEntries(Object.keys(personalization).map((key) => [key, ERASED]))
}

/** Texts shorter than this are not looked for inside other texts (`Jo` would be found everywhere). */
const MIN_TEXT = 3

/** The distinct texts of a customer worth looking for: what was searched and what the orders held. */
export function personalTexts(values: (string | number | boolean | null | undefined)[]): string[] {
  const texts = new Set<string>()
  for (const value of values) {
    if (typeof value !== 'string') continue
    const text = value.trim()
    if (text.length >= MIN_TEXT && text.toLowerCase() !== ERASED) texts.add(text.toLowerCase())
  }
  return [...texts]
}

/**
 * A copy of an audit entry's details without the customer: a `customer`
 * object becomes the erased customer, a `personalization` object (when it
 * goes too) its erased values, and any other text holding one of the texts
 * reads `erased`. Ids, quantities and field names stay.
 */
export function scrubDetails(value: unknown, texts: string[], personalization: boolean): unknown {
  if (typeof value === 'string') {
    const lower = value.toLowerCase()
    return texts.some((text) => lower.includes(text)) ? ERASED : value
  }
  if (Array.isArray(value)) return value.map((v) => scrubDetails(v, texts, personalization))
  if (value === null || typeof value !== 'object') return value
  const out: Record<string, unknown> = {}
  for (const [key, v] of Object.entries(value)) {
    if (key === 'customer' && v !== null && typeof v === 'object') {
      out[key] = { ...Object.fromEntries(Object.keys(v).map((k) => [k, null])), ...ERASED_CUSTOMER }
    } else if (key === 'personalization' && personalization && v !== null && typeof v === 'object') {
      out[key] = erasedPersonalization(v as Record<string, PersonalizationValue>)
    } else {
      out[key] = scrubDetails(v, texts, personalization)
    }
  }
  return out
}
