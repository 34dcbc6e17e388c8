import { SAFE_TEXT, SANITIZED_KEY } from './schemas.ts'

type Schema = Record<string, unknown>

/** Keywords whose value is a schema, a list of schemas or a map of them, each applied to (part of) the same value. */
const SCHEMA = ['items', 'additionalProperties', 'then', 'else']
const SCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems']
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs']

const admits = (schema: Schema, type: string) =>
  schema.type === type || (Array.isArray(schema.type) && schema.type.includes(type))

/** The same string schema, also refusing what SAFE_TEXT refuses (beside a pattern of its own, if it has one). */
function withSafeText(schema: Schema): Schema {
  if (schema.enum !== undefined || schema.const !== undefined || schema.pattern === SAFE_TEXT) return schema
  if (schema[SANITIZED_KEY] === true) return schema
  if (schema.pattern === undefined) return { ...schema, pattern: SAFE_TEXT }
  return { ...schema, allOf: [...((schema.allOf as Schema[] | undefined) ?? []), { pattern: SAFE_TEXT }] }
}

function walk(schema: Schema): Schema {
  if (typeof schema !== 'object' || schema === null) return schema
  // A referenced schema's strings would go unchecked: request schemas are written out in full.
  if (schema.$ref !== undefined) throw new Error(`request schema with $ref ${schema.$ref}: write it out`)
  let out: Schema = { ...schema }
  for (const key of SCHEMA) {
    const sub = schema[key]
    if (Array.isArray(sub)) out[key] = sub.map(walk)
    else if (typeof sub === 'object' && sub !== null) out[key] = walk(sub as Schema)
  }
  for (const key of SCHEMA_LISTS) {
    if (Array.isArray(schema[key])) out[key] = (schema[key] as Schema[]).map(walk)
  }
  for (const key of SCHEMA_MAPS) {
    const map = schema[key] as Record<string, Schema> | undefined
    if (map) out[key] = Object.fromEntries(Object.entries(map).map(([name, sub]) => [name, walk(sub)]))
  }
  // Keys are text too, and stored as such (personalization's keys, in JSON).
  if (typeof schema.propertyNames === 'object' && schema.propertyNames !== null)
    out.propertyNames = withSafeText(schema.propertyNames as Schema)
  else if (admits(out, 'object') && (out.additionalProperties !== false || out.patternProperties))
    out.propertyNames = { pattern: SAFE_TEXT }
  if (admits(out, 'string')) out = withSafeText(out)
  return out
}

const storable = new WeakMap<object, object>()

/**
 * A request schema in which every string (every field, entry, map value and
 * key, at any depth) must also be text PostgreSQL can store: no NUL, no lone
 * UTF-16 surrogate. Applied where every route's validator is compiled, so no
 * route can take such text to the database (a 500) or into a download it cuts
 * short. `not` and `if` are left alone: a condition is not a rule. Derived
 * once per schema object; the published documents keep the schema as written.
 */
export function storableText(schema: object): object {
  let out = storable.get(schema)
  if (!out) {
    out = walk(schema as Schema)
    storable.set(schema, out)
  }
  return out
}
