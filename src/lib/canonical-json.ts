import { createHash } from 'node:crypto'

/**
 * JSON with object keys sorted at every level, arrays in their order, nothing
 * added or dropped: two bodies that differ only in key order or whitespace are
 * the same content.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  const keys = Object.keys(value).sort()
  const parts: string[] = []
  for (const key of keys) {
    const v = (value as Record<string, unknown>)[key]
    if (v === undefined) continue
    parts.push(`${JSON.stringify(key)}:${canonicalJson(v)}`)
  }
  return `{${parts.join(',')}}`
}

export function contentHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value), 'utf8').digest('hex')
}
