import { STATUS_CODES } from 'node:http'
import { isDeepStrictEqual } from 'node:util'
import type { ErrorContext } from './error-handler.ts'
import { docUrl, type ErrorCode, type ValidationEntry } from './errors.ts'
import { type OperationExamples, operationExamples } from './openapi-examples.ts'
import { type CodeSample, codeSamples } from './openapi-samples.ts'
import { ACCEPTED_VALUES_KEY, KNOWN_VALUES_KEY, SANITIZED_KEY } from './schemas.ts'

type Json = Record<string, unknown>
interface MediaType {
  schema?: Json
  example?: unknown
  examples?: Record<string, { summary: string; value: unknown }>
}
interface Response {
  description: string
  content?: Record<string, MediaType>
  headers?: Json
}
interface Operation {
  operationId?: string
  'x-codeSamples'?: CodeSample[]
  security?: unknown
  parameters?: Json[]
  requestBody?: { required?: boolean; content: Record<string, MediaType> }
  responses: Record<string, Response>
}
/** The document's `webhooks` and the schemas of their bodies, from the webhooks module. */
export interface WebhooksSection {
  webhooks: Json
  /** Named (`$id`) schemas of the bodies. */
  schemas: object[]
  /** Any body, told apart by its type. */
  union: Json
}

export interface OpenApiDocument extends Json {
  paths: Record<string, Record<string, Operation>>
  components: { schemas: Record<string, Json> } & Json
}

const HEADERS = {
  'X-Request-Id': {
    description:
      'The request\u2019s id: the X-Request-Id you sent (1 to 128 of `A-Za-z0-9_.:-`), else a new UUID. Quote it to support.',
    required: true,
    schema: { type: 'string' },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in the current window.',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Reset': { description: 'Seconds until the current window ends.', schema: { type: 'integer' } },
  'Retry-After': {
    description: 'Seconds until the window ends and requests pass again.',
    required: true,
    schema: { type: 'integer' },
  },
}
const rateLimitHeader = (limit: number) => ({
  description: `Requests allowed per window (${limit}). Sent on every response to a valid key except 401.`,
  schema: { type: 'integer' },
})

const header = (name: keyof typeof HEADERS | 'X-RateLimit-Limit') => ({
  $ref: `#/components/headers/${name}`,
})

const REQUEST_ID_PARAMETER = {
  in: 'header',
  name: 'X-Request-Id',
  required: false,
  description: 'Your id for this request, echoed in the response (1 to 128 of `A-Za-z0-9_.:-`).',
  schema: { type: 'string', pattern: '^[\\w.:-]{1,128}$' },
  example: 'shop-sync-7f3a91',
}

const isSchema = (value: Json) => 'type' in value || 'properties' in value || 'anyOf' in value

/**
 * Moves every named subschema (an `$id`, or the `title` @fastify/swagger leaves
 * where it dropped one) into components.schemas and leaves a $ref in its
 * place. Two different schemas under one name are a mistake in the code and
 * fail here.
 */
function lift(value: unknown, components: Record<string, Json>): unknown {
  if (Array.isArray(value)) return value.map((v) => lift(v, components))
  if (typeof value !== 'object' || value === null) return value
  const copy = Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => k !== SANITIZED_KEY)
      .map(([k, v]) => [k, lift(v, components)]),
  ) as Json
  const known = copy[KNOWN_VALUES_KEY]
  if (Array.isArray(known)) {
    // An extensible enum: generators type the known values and still accept new ones.
    const { [KNOWN_VALUES_KEY]: _, description, ...string } = copy
    return { ...(description ? { description } : {}), anyOf: [{ ...string, enum: known }, string] }
  }
  const accepted = copy[ACCEPTED_VALUES_KEY]
  if (Array.isArray(accepted)) {
    // A closed set of a request: generators type the values, validators refuse others, as the service does.
    const { [ACCEPTED_VALUES_KEY]: _, ...string } = copy
    return { ...string, enum: accepted }
  }
  const name = copy.$id ?? (isSchema(copy) ? copy.title : undefined)
  if (typeof name !== 'string') return copy
  delete copy.$id
  copy.title = name
  // What @fastify/swagger put there may still hold its own named parts inline.
  const existing = components[name] && liftInner(components[name], components)
  if (existing && !isDeepStrictEqual(existing, copy))
    throw new Error(`two different schemas are named ${name}`)
  components[name] = copy
  return { $ref: `#/components/schemas/${name}` }
}

function liftInner(schema: Json, components: Record<string, Json>): Json {
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, lift(v, components)]))
}

/** Lifts the named schemas inside each component, keeping the component itself. */
function liftComponents(components: Record<string, Json>): void {
  for (const [name, schema] of Object.entries(components)) {
    components[name] = { ...liftInner(schema, components), title: name }
  }
}

function errorExample(code: ErrorCode, context: ErrorContext, entries: ValidationEntry[] | undefined) {
  const errors = code === 'validation_failed' && entries ? entries : undefined
  return {
    error: {
      code,
      message: context.texts[code].message,
      doc_url: docUrl(context.publicBaseUrl, code),
      ...(errors?.length === 1 ? { field: errors[0]!.field } : {}),
      ...(errors ? { errors } : {}),
    },
  }
}

function finishResponse(
  status: string,
  response: Response,
  codes: ErrorCode[] | undefined,
  examples: OperationExamples | undefined,
  context: ErrorContext,
): void {
  const media = response.content?.['application/json']
  if (media && codes) {
    response.description = codes.map((c) => `\`${c}\`: ${context.texts[c].message}`).join('\n\n')
    media.examples = Object.fromEntries(
      codes.map((c) => [c, { summary: c, value: errorExample(c, context, examples?.validation) }]),
    )
  } else {
    if (response.description === 'Default Response') response.description = STATUS_CODES[status] ?? status
    const example = examples?.responses[Number(status)]
    if (media && example !== undefined) media.example = example
  }
  response.headers = {
    ...response.headers,
    'X-Request-Id': header('X-Request-Id'),
    // A 401 carries no rate-limit headers; an open route sends them to a valid key.
    ...(status === '401'
      ? {}
      : {
          'X-RateLimit-Limit': header('X-RateLimit-Limit'),
          'X-RateLimit-Remaining': header('X-RateLimit-Remaining'),
          'X-RateLimit-Reset': header('X-RateLimit-Reset'),
        }),
    ...(status === '429' ? { 'Retry-After': header('Retry-After') } : {}),
  }
}

/**
 * What @fastify/swagger leaves to us: named request bodies as components,
 * the error codes of each response with an example of each, the headers of
 * every response, the examples of every operation, and the webhooks.
 */
function liftPaths(doc: OpenApiDocument): void {
  doc.paths = lift(doc.paths, doc.components.schemas) as OpenApiDocument['paths']
}

/**
 * ErrorResponse.code lists the codes this document's operations answer (the
 * dashboard's and the operators' codes are not /v1's), as an extensible enum:
 * new codes may be added within v1.
 */
function surfaceCodes(schemas: Record<string, Json>, errorCodes: Map<string, Record<string, ErrorCode[]>>) {
  const used = new Set<string>([
    'not_found',
    ...[...errorCodes.values()].flatMap((r) => Object.values(r).flat()),
  ])
  const error = (schemas.ErrorResponse?.properties as Json | undefined)?.error as Json | undefined
  const properties = error?.properties as Json | undefined
  const code = properties?.code as Json | undefined
  if (!properties || !code || !Array.isArray(code.enum)) return
  const { enum: all, description, ...string } = code
  properties.code = {
    description,
    anyOf: [{ ...string, enum: (all as string[]).filter((c) => used.has(c)) }, string],
  }
}

/**
 * validation_failed always lists its problems: ValidationErrorResponse is
 * ErrorResponse with `code` fixed and `errors` required, so a generated client
 * reads `errors` without a check. A 422 that is only validation_failed
 * references it; one that also has other codes offers both. Only the document
 * changes: the answers are serialized with ErrorResponse, as every error.
 */
function validationErrors(doc: OpenApiDocument, errorCodes: Map<string, Record<string, ErrorCode[]>>) {
  const schemas = doc.components.schemas
  const errorResponse = schemas.ErrorResponse as Json & { properties: { error: Json } }
  const error = structuredClone(errorResponse.properties.error)
  const properties = error.properties as Json
  properties.code = { type: 'string', const: 'validation_failed', description: 'Always validation_failed.' }
  properties.errors = { ...(properties.errors as Json), description: 'Every problem found.' }
  error.required = [...(error.required as string[]), 'errors']
  schemas.ValidationErrorResponse = {
    type: 'object',
    required: ['error'],
    properties: { error },
    title: 'ValidationErrorResponse',
    description: 'The body of a 422 validation_failed: errors[] lists every problem.',
  }
  // For validators, where a 422 offers both: a validation_failed matches ErrorResponse only with errors.
  errorResponse.if = { properties: { error: { properties: { code: { const: 'validation_failed' } } } } }
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's keyword, not a thenable
  errorResponse.then = {
    properties: { error: { required: ['errors'], properties: { errors: properties.errors } } },
  }
  const validation = { $ref: '#/components/schemas/ValidationErrorResponse' }
  const any = { $ref: '#/components/schemas/ErrorResponse' }
  for (const op of Object.values(doc.paths).flatMap((methods) => Object.values(methods))) {
    const codes = errorCodes.get(op.operationId ?? '')?.['422']
    const media = op.responses['422']?.content?.['application/json']
    if (!media || !codes?.includes('validation_failed')) continue
    media.schema = codes.length === 1 ? validation : { anyOf: [validation, any] }
  }
}

export function finishDocument(
  doc: OpenApiDocument,
  context: ErrorContext,
  errorCodes: Map<string, Record<string, ErrorCode[]>>,
  events: WebhooksSection,
  rateLimitPerMinute: number,
): OpenApiDocument {
  const schemas = doc.components.schemas
  liftComponents(schemas)
  liftPaths(doc)
  const examples = operationExamples(context.publicBaseUrl)
  const samples = codeSamples(context.publicBaseUrl)
  for (const methods of Object.values(doc.paths)) {
    for (const op of Object.values(methods)) {
      const own = op.operationId ? examples[op.operationId] : undefined
      const sampled = op.operationId ? samples[op.operationId] : undefined
      if (sampled) op['x-codeSamples'] = sampled
      op.parameters = [...(op.parameters ?? []), { $ref: '#/components/parameters/X-Request-Id' }]
      for (const parameter of op.parameters) {
        const example = own?.parameters?.[parameter.name as string]
        if (example !== undefined) parameter.example = example
      }
      for (const media of Object.values(op.requestBody?.content ?? {})) {
        if (own?.request !== undefined) media.example = own.request
      }
      for (const [status, response] of Object.entries(op.responses)) {
        finishResponse(status, response, errorCodes.get(op.operationId ?? '')?.[status], own, context)
      }
    }
  }
  surfaceCodes(schemas, errorCodes)
  validationErrors(doc, errorCodes)
  for (const schema of events.schemas) lift(schema, schemas)
  schemas.WebhookEvent = events.union
  doc.components.schemas = Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b)))
  doc.components.headers = { ...HEADERS, 'X-RateLimit-Limit': rateLimitHeader(rateLimitPerMinute) }
  doc.components.parameters = { 'X-Request-Id': REQUEST_ID_PARAMETER }
  doc.webhooks = events.webhooks
  return doc
}
