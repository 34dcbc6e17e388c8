import { randomUUID } from 'node:crypto'

/**
 * Values made from a route's request schema (its query string, body or
 * path parameters), for tests that walk every route: a valid sample, and
 * every way to put one bad string into it.
 */

// biome-ignore lint/suspicious/noExplicitAny: JSON schemas of every route, read keyword by keyword
type Schema = any

/** Strings whose schema asks for a pattern: a value matching it. */
const PATTERN_SAMPLES: Record<string, string> = {
  '^[A-Z]{3}$': 'EUR',
  '^[0-9]{4}-(0[1-9]|1[0-2])$': '2026-11',
  '^/v1': '/v1/orders',
  '^\\d{4}-\\d{2}-\\d{2}$': '2027-12-24',
}

const FORMAT_SAMPLES: Record<string, () => string> = {
  'date-time': () => '2026-11-22T10:00:00.000Z',
  date: () => '2026-11-22',
  uuid: () => randomUUID(),
  email: () => `sample-${randomUUID().slice(0, 8)}@example.com`,
  uri: () => 'https://example.com/hooks',
}

const typeOf = (schema: Schema): string | undefined =>
  Array.isArray(schema.type) ? schema.type.find((type: string) => type !== 'null') : schema.type

/** A value the schema accepts, as small as it allows: required fields only, the fewest entries. */
export function sampleOf(schema: Schema): unknown {
  if (schema.$ref) throw new Error(`a request schema with $ref (${schema.$ref})`)
  if (schema.const !== undefined) return schema.const
  if (schema.enum) return schema.enum[0]
  const branches = schema.anyOf ?? schema.oneOf
  if (branches) return sampleOf(branches.find((branch: Schema) => branch.type !== 'null') ?? branches[0])
  switch (typeOf(schema)) {
    case 'string': {
      if (schema['x-accepted-values']) return schema['x-accepted-values'][0]
      if (schema.format && FORMAT_SAMPLES[schema.format]) return FORMAT_SAMPLES[schema.format]!()
      if (schema.pattern && PATTERN_SAMPLES[schema.pattern]) return PATTERN_SAMPLES[schema.pattern]
      return 'x'.repeat(Math.max(schema.minLength ?? 1, 1))
    }
    case 'integer':
    case 'number':
      return schema.minimum ?? 1
    case 'boolean':
      return true
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, () => sampleOf(schema.items))
    case 'object': {
      const properties: Record<string, Schema> = schema.properties ?? {}
      const names = Object.keys(properties)
      const wanted = new Set<string>(schema.required ?? [])
      for (const name of names) if (wanted.size < (schema.minProperties ?? 0)) wanted.add(name)
      return Object.fromEntries([...wanted].map((name) => [name, sampleOf(properties[name])]))
    }
    default:
      return null
  }
}

const padded = (schema: Schema, bad: string) =>
  `a${bad}${'b'.repeat(Math.max((schema.minLength ?? 0) - 2, 1))}`
/** A string the schema would take but for its NUL: as long as its minLength asks. */
export const withNul = (schema: Schema) => padded(schema, '\u0000')
/** The same with a lone UTF-16 surrogate instead (JSON can carry one: `"\ud800"`). */
export const withLoneSurrogate = (schema: Schema) => padded(schema, '\ud800')

export interface Variant {
  /** The whole value, valid but for one string. */
  value: unknown
  /** That string's place as validation entries name it (`items.0.name`); '' for the value itself. */
  field: string
}

const join = (base: string, key: string) => (base ? `${key}.${base}` : key)

/**
 * One variant per string the schema can hold (a field, an entry of an
 * array, a value or key of a map, a branch of anyOf), that string made `bad`.
 * An object key is named by its object, as validation entries name it.
 */
export function variantsOf(schema: Schema, bad: (schema: Schema) => string): Variant[] {
  const branches = schema.anyOf ?? schema.oneOf
  if (branches) return branches.flatMap((branch: Schema) => variantsOf(branch, bad))
  switch (typeOf(schema)) {
    case 'string':
      // A filename: sanitized by the service, not refused (tested on its own).
      return schema['x-sanitized'] ? [] : [{ value: bad(schema), field: '' }]
    case 'array': {
      const rest = (sampleOf(schema) as unknown[]).slice(1)
      return variantsOf(schema.items, bad).map((v) => ({
        value: [v.value, ...rest],
        field: join(v.field, '0'),
      }))
    }
    case 'object': {
      const base = sampleOf(schema) as Record<string, unknown>
      const properties: Record<string, Schema> = schema.properties ?? {}
      const variants = Object.entries(properties).flatMap(([name, sub]) =>
        variantsOf(sub, bad).map((v) => ({
          value: { ...base, [name]: v.value },
          field: join(v.field, name),
        })),
      )
      const extra = schema.additionalProperties
      if (extra && typeof extra === 'object') {
        for (const v of variantsOf(extra, bad))
          variants.push({ value: { ...base, key: v.value }, field: join(v.field, 'key') })
        variants.push({ value: { ...base, [bad({})]: sampleOf(extra) }, field: '' })
      }
      return variants
    }
    default:
      return []
  }
}
