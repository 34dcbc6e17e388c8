import Type, { type Static, type TSchema } from 'typebox'
import {
  ERROR_CATALOG,
  ERROR_CODES,
  type ErrorCode,
  MAX_VALIDATION_ENTRIES,
  TOP_LEVEL_CODES,
} from './errors.ts'

/**
 * Text as PostgreSQL can store it and as integrators expect it back: no NUL
 * bytes and no lone UTF-16 surrogates (which would otherwise be silently
 * replaced on the way into the database). Enforced by the schema, so the
 * failure is an ordinary validation entry.
 */
export const SAFE_TEXT = '^[^\\u0000\\uD800-\\uDFFF]*$'

export function Text(options: { minLength?: number; maxLength: number; description?: string }) {
  return Type.String({ ...options, pattern: SAFE_TEXT })
}

/** Marks a request's string that the service sanitizes instead of refusing what SAFE_TEXT refuses (not in the documents). */
export const SANITIZED_KEY = 'x-sanitized'

/**
 * A filename: the reference has unusual characters replaced with `_`, so a
 * NUL in one is sanitized like any of them rather than refused.
 */
export function SanitizedName(options: { minLength?: number; maxLength: number; description?: string }) {
  return Type.String({ ...options, [SANITIZED_KEY]: true })
}

/**
 * A scalar that also accepts null ("not sent"). Written as a type array rather
 * than anyOf so that a bad value yields one precise error, not one per branch.
 */
export function Nullable<T extends TSchema>(schema: T) {
  const { type, ...rest } = schema as unknown as { type: string }
  return Type.Unsafe<Static<T> | null>({ ...rest, type: [type, 'null'] })
}

/**
 * One of the listed strings, typed as their union: the plain
 * `{ type: 'string', enum }` in the JSON Schema, so validation and the OpenAPI
 * document read it as before, and no handler needs a cast.
 */
export function StringEnum<const Values extends readonly string[]>(
  values: Values,
  options: { description?: string } = {},
) {
  return Type.Unsafe<Values[number]>(Type.String({ ...options, enum: [...values] }))
}

/** Where a string lists its known values, for the OpenAPI document (which turns it into an extensible enum). */
export const KNOWN_VALUES_KEY = 'x-known-values'

/**
 * An answer's string from a set that may grow (the reference: clients
 * tolerate unknown values). Validated and serialized as a plain string; the
 * document shows `anyOf: [known values, string]`.
 */
export function KnownString(values: readonly string[], options: { description?: string } = {}) {
  return Type.String({ ...options, [KNOWN_VALUES_KEY]: [...values] })
}

/** Where a request's string names the values the service accepts, for the OpenAPI document (which shows them as its `enum`). */
export const ACCEPTED_VALUES_KEY = 'x-accepted-values'

/**
 * A request's string from a closed set that the service checks itself, so
 * that its answer names the entry and says why (enabled_events: `ping`
 * always reaches an endpoint, `*` goes alone), which the schema's enum error
 * could not. Validated as a plain string; the document shows the plain `enum`
 * of `values`, the list the service checks against.
 */
export function AcceptedString(
  values: readonly string[],
  options: { maxLength?: number; description?: string },
) {
  return Type.String({ ...options, [ACCEPTED_VALUES_KEY]: [...values] })
}

export const Timestamp = Type.String({
  format: 'date-time',
  description: 'ISO 8601 UTC timestamp with milliseconds, e.g. 2026-11-22T10:15:30.123Z',
})

export const Uuid = Type.String({ format: 'uuid' })

export const ValidationEntrySchema = Type.Object(
  {
    code: KnownString(
      ERROR_CODES.filter((c) => ERROR_CATALOG[c].kind === 'entry'),
      { description: 'Specific code, e.g. required, too_long, file_not_found.' },
    ),
    message: Type.String(),
    field: Type.String({ description: 'Opaque label of the offending field.' }),
  },
  {
    $id: 'ValidationEntry',
    title: 'ValidationEntry',
    description: 'One problem of a validation_failed answer.',
  },
)

export const ErrorSchema = Type.Object(
  {
    error: Type.Object({
      code: Type.String({
        enum: TOP_LEVEL_CODES,
        description: 'Stable machine identifier; branch on it only.',
      }),
      message: Type.String({ description: 'Human-readable English; may change.' }),
      doc_url: Type.String({ description: 'Reference page of the code.' }),
      field: Type.Optional(Type.String()),
      errors: Type.Optional(Type.Array(ValidationEntrySchema, { maxItems: MAX_VALIDATION_ENTRIES })),
    }),
  },
  // Not `Error`: generated code would shadow the language's own Error class.
  { $id: 'ErrorResponse', title: 'ErrorResponse', description: 'The body of every failed request.' },
)

const ERROR_REF = Type.Unsafe({ $ref: 'ErrorResponse#' })

/** Where an error response schema lists its codes, for the OpenAPI document (which then drops it). */
export const ERROR_CODES_KEY = 'x-error-codes'

/** Response schemas for the listed error codes, grouped by status, for a route's `response`. */
export function errorResponses(...codes: ErrorCode[]): Record<number, TSchema> {
  const byStatus: Record<number, ErrorCode[]> = {}
  for (const code of codes) {
    const status = ERROR_CATALOG[code].status
    byStatus[status] = [...new Set([...(byStatus[status] ?? []), code])]
  }
  const out: Record<number, TSchema> = {}
  for (const [status, list] of Object.entries(byStatus)) {
    out[Number(status)] = Type.Unsafe({
      ...ERROR_REF,
      description: `Error: ${list.join(', ')}`,
      [ERROR_CODES_KEY]: list,
    })
  }
  return out
}

/** Errors any authenticated public route can answer with. */
export const AUTHENTICATED_ERRORS: ErrorCode[] = [
  'invalid_api_key',
  'insufficient_scope',
  'rate_limited',
  'internal_error',
  'service_unavailable',
]
