/**
 * What the body scanner (body-scan.ts) needs of a request body's JSON schema:
 * where objects and arrays may appear, their fields, and the most entries each
 * can hold. Derived once per route from the schema that validates it, so the
 * sizes can never disagree with the validation.
 */
export interface Shape {
  /** Present when the schema admits an object here. */
  object?: {
    properties: Map<string, Shape>
    /** Shape of members not in `properties`; false when they are unknown fields. */
    additional: Shape | false
    /** The most members a valid object holds (maxProperties, or its number of fields). */
    limit: number
  }
  /** Present when the schema admits an array here. */
  array?: { items: Shape; limit: number }
  /** maxLength of a string here, in characters. */
  maxLength?: number
}

type Schema = Record<string, unknown>

export class UnboundedSchemaError extends Error {}

function typesOf(schema: Schema): Set<string> | undefined {
  if (typeof schema.type === 'string') return new Set([schema.type])
  if (Array.isArray(schema.type)) return new Set(schema.type as string[])
  return undefined
}

function fail(path: string, why: string): never {
  throw new UnboundedSchemaError(`request body schema at ${path || 'the root'}: ${why}`)
}

/**
 * The shape of a body schema. Throws UnboundedSchemaError where a valid body
 * could be arbitrarily large in entries (an array without maxItems, an open
 * object without maxProperties, a value of any type), so every route's body
 * stays bounded by construction.
 */
export function shapeOf(input: object, path = ''): Shape {
  const schema = input as Schema
  if (schema.$ref !== undefined) fail(path, '$ref is not supported')
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined
  if (branches) {
    const shapes = branches.map((branch) => shapeOf(branch, path))
    const containers = shapes.filter((s) => s.object || s.array)
    if (containers.length > 1) fail(path, 'only one branch of anyOf/oneOf may be an object or an array')
    const lengths = shapes.map((s) => s.maxLength ?? Number.POSITIVE_INFINITY)
    const maxLength = Math.max(...lengths)
    return { ...containers[0], ...(Number.isFinite(maxLength) ? { maxLength } : {}) }
  }
  const types = typesOf(schema)
  if (!types) {
    if (schema.enum !== undefined || schema.const !== undefined) return {}
    fail(path, 'a value of any type')
  }
  const shape: Shape = {}
  if (types.has('string') && typeof schema.maxLength === 'number') shape.maxLength = schema.maxLength
  if (types.has('object')) {
    const properties = new Map<string, Shape>()
    for (const [key, sub] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
      properties.set(key, shapeOf(sub, path ? `${path}.${key}` : key))
    }
    const extra = schema.additionalProperties
    let additional: Shape | false = false
    if (typeof extra === 'object' && extra !== null) additional = shapeOf(extra as Schema, `${path}.*`)
    else if (extra !== false) fail(path, 'open object of any values')
    const limit =
      (schema.maxProperties as number | undefined) ?? (additional === false ? properties.size : NaN)
    if (!Number.isFinite(limit)) fail(path, 'open object without maxProperties')
    shape.object = { properties, additional, limit }
  }
  if (types.has('array')) {
    const items = schema.items
    if (typeof items !== 'object' || !items || Array.isArray(items))
      fail(path, 'array without one items schema')
    const limit = schema.maxItems as number | undefined
    if (limit === undefined) fail(path, 'array without maxItems')
    shape.array = { items: shapeOf(items as Schema, `${path}.*`), limit }
  }
  return shape
}

const shapes = new WeakMap<object, Shape>()

/** The shape of a route's body schema, derived once per schema object. */
export function bodyShape(schema: object): Shape {
  let shape = shapes.get(schema)
  if (!shape) {
    shape = shapeOf(schema as Schema)
    shapes.set(schema, shape)
  }
  return shape
}
