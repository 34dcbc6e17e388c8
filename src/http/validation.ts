import { Ajv, type ErrorObject, type Options } from 'ajv'
import addFormatsModule from 'ajv-formats'
import { distance } from 'fastest-levenshtein'
import type { FastifySchemaCompiler } from 'fastify'
import { isUuid } from '../lib/ids.ts'
import { isStorableInstant } from '../lib/instants.ts'
import { bodyShape } from './body-shape.ts'
import { AppError, type ErrorCode, MAX_VALIDATION_ENTRIES, type ValidationEntry } from './errors.ts'
import { SAFE_TEXT } from './schemas.ts'
import { storableText } from './storable-text.ts'

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv

const common: Options = {
  allErrors: true,
  // Unknown fields are an error (unknown_field), never silently dropped.
  removeAdditional: false,
  useDefaults: false,
  strict: false,
  // Lengths count code points, as integrators count characters.
  unicodeRegExp: true,
  // 1e400 parses to Infinity: not a number the database or the JSON response can carry.
  strictNumbers: true,
  // Errors carry their schema and value: the allowed names, forms and fields a message states.
  verbose: true,
}

/** How each format is written, for messages. */
const FORMS: Record<string, string> = {
  'date-time': 'an ISO 8601 timestamp with Z or an offset, such as 2026-11-22T10:15:30.123Z',
  uuid: 'a UUID: 32 hex digits grouped 8-4-4-4-12, such as 0192b4d0-7c3a-7def-8b3e-2f6a1c9d0e4f',
}

// Bodies are taken as sent: "12" is not a number. Query strings and path
// parameters are text by nature, so they are coerced ("limit=10").
const bodyAjv = withStorableFormats(addFormats(new Ajv({ ...common, coerceTypes: false })))
const queryAjv = withStorableFormats(addFormats(new Ajv({ ...common, coerceTypes: true })))

/**
 * Formats narrowed to what PostgreSQL accepts, so that a value that passes
 * validation never fails in the database. RFC 3339 alone admits instants it
 * refuses (year 0000, or 9999-12-31 with a negative offset, which is year 10000
 * in UTC) and leap seconds that Date cannot parse; ajv-formats' uuid also takes
 * the `urn:uuid:` form, which the uuid type does not.
 */
function withStorableFormats(ajv: Ajv): Ajv {
  const rfc3339 = ajv.formats['date-time'] as { validate: (value: string) => boolean }
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (value: string) => rfc3339.validate(value) && isStorableInstant(new Date(value)),
  })
  ajv.addFormat('uuid', { type: 'string', validate: isUuid })
  return ajv
}

type Validate = ReturnType<FastifySchemaCompiler<unknown>> & { errors?: ErrorObject[] | null }

/**
 * A route's validator, compiled (by ajv) when the route is first called rather
 * than at startup, as the serializers are (serializers.ts): compiling every
 * route's schemas is most of a start's CPU, for routes an instance may never
 * serve. What a request sees is the same validator; the shape of each body
 * schema is still checked at startup.
 */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  // A body schema must bound every array and object (see body-shape.ts): checked at startup.
  if (httpPart === 'body') bodyShape(schema as object)
  const ajv = httpPart === 'body' ? bodyAjv : queryAjv
  let compiled: Validate | undefined
  const validate = ((data: unknown) => {
    // Path parameters are ids: one holding a NUL cannot exist, and is 404 like any unknown id.
    compiled ??= ajv.compile(
      httpPart === 'params' ? (schema as object) : storableText(schema as object),
    ) as Validate
    const valid = compiled(data)
    validate.errors = compiled.errors
    return valid
  }) as Validate
  return validate
}

/**
 * validation_failed for a body the parser already knows to be invalid: the
 * `leading` entries (what the scan cut) first, then what validation finds in
 * the rest.
 */
export function validateBody(schema: object, data: unknown, leading: ValidationEntry[]): AppError {
  const validate = bodyAjv.compile(storableText(schema))
  validate(data)
  return AppError.validation(toValidationEntries(validate.errors ?? [], leading))
}

/** JSON pointer (`/items/0/quantity`) to the reference's dot notation (`items.0.quantity`). */
function dotPath(pointer: string): string {
  if (!pointer) return ''
  return pointer
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.')
}

function join(base: string, key: string): string {
  return base ? `${base}.${key}` : key
}

function describe(code: ErrorCode, e: ErrorObject): string {
  const p = e.params as Record<string, unknown>
  switch (code) {
    case 'required':
      return 'is required'
    case 'unknown_field': {
      const suggestion = closestField(p.additionalProperty as string, e)
      return suggestion ? `is not a known field; did you mean \`${suggestion}\`?` : 'is not a known field'
    }
    case 'invalid_type':
      return `must be of type ${Array.isArray(p.type) ? p.type.join(' or ') : p.type}`
    case 'invalid_format':
      if (e.keyword === 'format') return `must be ${FORMS[p.format as string] ?? `a valid ${p.format}`}`
      if (e.keyword === 'enum')
        return `must be one of ${(p.allowedValues as unknown[]).map(quote).join(', ')}`
      if (e.keyword === 'const') return `must be ${quote(p.allowedValue)}`
      if (e.keyword === 'pattern' && p.pattern === SAFE_TEXT) {
        return 'must not contain NUL characters or lone UTF-16 surrogates'
      }
      // A pattern's schema says in words what it matches (currency: "an ISO 4217 …").
      return e.keyword === 'pattern' && e.parentSchema?.description
        ? `must be ${e.parentSchema.description}`
        : 'has an invalid format'
    case 'too_short':
      return `must be at least ${characters(p.limit)}`
    case 'too_long':
      return e.propertyName !== undefined
        ? `key "${e.propertyName.length > 40 ? `${e.propertyName.slice(0, 40)}...` : e.propertyName}" must be at most ${characters(p.limit)}`
        : `must be at most ${characters(p.limit)}`
    case 'too_small':
      return `must be ${e.keyword === 'exclusiveMinimum' ? 'greater than' : 'at least'} ${p.limit}`
    case 'too_large':
      return `must be ${e.keyword === 'exclusiveMaximum' ? 'less than' : 'at most'} ${p.limit}`
    case 'too_few':
      return `must have at least ${p.limit} entries`
    case 'too_many':
      return `must have at most ${p.limit} entries`
    default:
      return e.message ?? 'is invalid'
  }
}

const quote = (value: unknown) => JSON.stringify(value)
const characters = (n: unknown) => `${n} character${n === 1 ? '' : 's'}`

/** Names longer than this get no suggestion (the distance costs their length times the candidate's). */
const MAX_SUGGESTED = 64

const words = (name: string) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)

/**
 * The known field an unknown one was most likely meant to be: one a few edits
 * away once case and separators are set aside (`quantitiy`, `externalOrderId`),
 * or one whose words hold all of the unknown one's in order (`external_id`,
 * `total`). Fields the object already has are not suggested.
 */
function closestField(name: string, e: ErrorObject): string | undefined {
  if (name.length > MAX_SUGGESTED) return undefined
  const known = Object.keys((e.parentSchema?.properties ?? {}) as object)
  const present = new Set(e.data && typeof e.data === 'object' ? Object.keys(e.data) : [])
  const flat = words(name).join('')
  let best: { field: string; d: number } | undefined
  for (const field of known) {
    if (present.has(field)) continue
    const d = distance(flat, words(field).join(''))
    const close = d <= Math.max(2, Math.floor(Math.max(flat.length, field.length) / 3))
    if ((close || containsInOrder(words(field), words(name))) && (!best || d < best.d)) best = { field, d }
  }
  return best?.field
}

function containsInOrder(whole: string[], part: string[]): boolean {
  let i = 0
  for (const word of whole) if (word === part[i]) i++
  return part.length > 0 && i === part.length
}

const KEYWORD_CODES: Record<string, ErrorCode> = {
  required: 'required',
  additionalProperties: 'unknown_field',
  type: 'invalid_type',
  format: 'invalid_format',
  pattern: 'invalid_format',
  enum: 'invalid_format',
  const: 'invalid_format',
  minLength: 'too_short',
  maxLength: 'too_long',
  minimum: 'too_small',
  exclusiveMinimum: 'too_small',
  maximum: 'too_large',
  exclusiveMaximum: 'too_large',
  minItems: 'too_few',
  minProperties: 'too_few',
  maxItems: 'too_many',
  maxProperties: 'too_many',
}

/** Turns Ajv errors into the reference's errors[] entries, in one place. */
export function toValidationEntries(
  errors: ErrorObject[],
  leading: ValidationEntry[] = [],
): ValidationEntry[] {
  const entries: ValidationEntry[] = leading.slice(0, MAX_VALIDATION_ENTRIES)
  const seen = new Set(entries.map((e) => `${e.code}\u0000${e.field}`))
  for (const e of errors) {
    if (entries.length >= MAX_VALIDATION_ENTRIES) break
    // propertyNames reports the inner failure too; that one carries the detail.
    if (e.keyword === 'propertyNames' || e.keyword === 'if' || e.keyword === 'anyOf') continue
    const code = KEYWORD_CODES[e.keyword] ?? 'invalid_format'
    const p = e.params as Record<string, string>
    let field = dotPath(e.instancePath)
    if (e.keyword === 'required') field = join(field, p.missingProperty!)
    else if (e.keyword === 'additionalProperties') field = join(field, p.additionalProperty!)
    field ||= 'body'
    const key = `${code}\u0000${field}`
    if (seen.has(key)) continue
    seen.add(key)
    entries.push({ code, field, message: `${field} ${describe(code, e)}` })
  }
  return entries
}

/** What validation_failed would list for this body under the schema, as the route's own check does (none: valid). */
export function bodyErrors(schema: object, data: unknown): ValidationEntry[] {
  const validate = bodyAjv.compile(storableText(schema))
  return validate(data) ? [] : toValidationEntries(validate.errors ?? [], [])
}
