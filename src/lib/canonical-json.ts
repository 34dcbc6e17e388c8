import { hash } from 'node:crypto'

/** A copy with object keys sorted at every level; arrays keep their order. */
function sortedKeys(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map(sortedKeys)
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value).sort()) out[key] = sortedKeys((value as Record<string, unknown>)[key])
  return out
}

/**
 * JSON with object keys sorted at every level, arrays in their order, nothing
 * added or dropped: two bodies that differ only in key order or whitespace are
 * the same content. (Sorting a copy and letting the native JSON.stringify do
 * the rest is faster than serializing by hand.)
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortedKeys(value))
}

export function contentHash(value: unknown): string {
  return hash('sha256', canonicalJson(value))
}
