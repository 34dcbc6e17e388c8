import type { EnvName } from '../config.ts'
import { binarySize, type CatalogValues } from './error-values.ts'

/**
 * The one error catalog. The error handler, the OpenAPI document and the
 * /developers/errors/<code> pages are all generated from this table, so they
 * cannot drift apart. Texts that state a limit are functions of the limits in
 * force (CatalogValues): the configured values and the constants the code
 * enforces, never a copy of them.
 *
 * kind:
 * - `error`: a top-level `error.code` with its HTTP status;
 * - `entry`: a code that only appears inside `error.errors[]` of validation_failed.
 */
export interface CatalogEntry {
  kind: 'error' | 'entry'
  status: number
  message: string
  description: string
  retry: string
}

type Text = string | ((v: CatalogValues) => string)

interface CatalogSource {
  kind: 'error' | 'entry'
  status: number
  message: Text
  description: Text
  retry: Text
}

/** Entries of one validation_failed answer. */
export const MAX_VALIDATION_ENTRIES = 50

const ALLOW_PRIVATE: EnvName = 'WEBHOOK_ALLOW_PRIVATE_CIDRS'
/**
 * How to receive webhooks on a developer's machine, where an http:// or
 * private target is refused: the command names this service (its
 * PUBLIC_BASE_URL), since the CLI's own default is localhost:3000.
 */
export const listenLocally = (serviceUrl: string) =>
  `To receive webhooks on your own machine, run \`npx order-intake listen --base-url ${serviceUrl} --forward-to http://localhost:4242/webhooks\` with your API key instead`
export const localWebhooks = (serviceUrl: string) =>
  `${listenLocally(serviceUrl)}; a service run for development may exempt private ranges with ${ALLOW_PRIVATE}.`
/** The catalog's wording, where the service's address is not known. */
const LOCAL_WEBHOOKS = localWebhooks('<this service>')

const NO_RETRY = 'Do not resend the same request unchanged.'
const FIX_FIELDS = 'Fix the named fields and resend the complete request.'

export const ERROR_CATALOG = {
  invalid_api_key: {
    kind: 'error',
    status: 401,
    message: 'The API key is missing, malformed, unknown, revoked or expired.',
    description:
      'Every request except the OpenAPI document, these pages and the signed upload PUT needs `Authorization: Bearer <API_KEY>`. A missing, malformed, unknown, revoked or expired key all get this same answer, so the response reveals nothing about which keys exist.',
    retry: 'Send a valid key. A lost key is replaced by creating a new one and revoking the old one.',
  },
  insufficient_scope: {
    kind: 'error',
    status: 403,
    message: 'The API key lacks a required scope.',
    description:
      'Scopes have no hierarchy: one never implies another. The message names the missing scopes. The scope check comes before any resource lookup.',
    retry: 'Use a key that carries the named scopes.',
  },
  invalid_operator_token: {
    kind: 'error',
    status: 401,
    message: 'The operator token is missing or wrong.',
    description: 'The operator API (`/admin/v1`) needs `Authorization: Bearer <OPERATOR_TOKEN>`.',
    retry: 'Send the operator token configured for this service.',
  },
  invalid_json: {
    kind: 'error',
    status: 400,
    message: 'The request body is not valid JSON.',
    description:
      'Endpoints that take a body need `Content-Type: application/json` (parameters such as `; charset=utf-8` are fine) and a body that parses as JSON. A missing or different content type gets this code too. An empty body sent as `application/json` is no body on endpoints whose body is optional or that take none. The message says where the body stops being JSON: what was found there, its line, its column (in characters) and its byte offset.',
    retry: NO_RETRY,
  },
  request_too_large: {
    kind: 'error',
    status: 413,
    message: 'The request body is larger than this endpoint accepts.',
    description: (v) =>
      `JSON request bodies are limited per endpoint: ${binarySize(v.orderBodyBytes)} (${v.orderBodyBytes} bytes) for \`POST /v1/orders\`, ${binarySize(v.defaultBodyBytes)} (${v.defaultBodyBytes} bytes) for every other endpoint. The message states the limit of the endpoint called.`,
    retry: NO_RETRY,
  },
  request_timeout: {
    kind: 'error',
    status: 408,
    message: 'The request did not arrive in time.',
    description: (v) =>
      `The request line and headers must arrive within ${v.headersTimeoutMs / 1000} s, and a request body within ${v.bodyTimeoutMs / 1000} s after them; an upload PUT may take as long as it needs at an average of at least ${binarySize(v.uploadMinBytesPerSecond)}/s after its first ${v.uploadGraceMs / 1000} s (a ${binarySize(v.maxUploadBytes)} file about ${Math.round(v.maxUploadBytes / v.uploadMinBytesPerSecond / 60)} minutes), and stalling or trickling slower stops it. Nothing is processed or stored, and the connection is closed after this answer.`,
    retry: 'Safe to resend the identical request on a new connection.',
  },
  validation_failed: {
    kind: 'error',
    status: 422,
    message: 'The request is invalid; errors[] lists every problem.',
    description: `\`errors[]\` lists every problem found (up to ${MAX_VALIDATION_ENTRIES}), each with \`code\`, \`message\` and \`field\`. Nothing was created or changed, and the message says which: a refused order, upload slot or webhook endpoint was not created; a refused read (such as invalid query parameters of \`GET /v1/orders\`) changes nothing anyway. Schema problems use dot notation (\`items.0.quantity\`); file checks at acceptance use bracket notation (\`items[0].files[0].upload_id\`). Treat \`field\` as an opaque label. Also returned for a test call on a disabled webhook endpoint, and for an upload PUT sent as JSON (field \`Content-Type\`: send the file\u2019s raw bytes; the upload URL still takes them).`,
    retry: FIX_FIELDS,
  },
  order_already_exists_with_different_content: {
    kind: 'error',
    status: 409,
    message: 'An order with this external_order_id already exists with different content.',
    description:
      'Duplicate protection compares the whole request body (including upload_id values). An identical repeat returns the existing order with 200; any difference gets this error and nothing changes. Orders cannot be modified through the API.',
    retry: NO_RETRY,
  },
  not_found: {
    kind: 'error',
    status: 404,
    message: 'Not found.',
    description: (v) =>
      `Unknown path (a known path with another method is 405 \`method_not_allowed\`), or an id that does not exist or belongs to another organization or environment (never 403). When the id is your organization's in the other environment, the message says so and which key reads it (\`svc_test_\` or \`svc_live_\`); another organization's id gets the plain message. Also an id that cannot exist: one that is not a UUID, longer than ${v.maxParamLength} characters, or not decodable (\`%ZZ\`).`,
    retry: NO_RETRY,
  },
  method_not_allowed: {
    kind: 'error',
    status: 405,
    message: 'This path does not accept this method.',
    description:
      'The path exists, but not with the method used. The `Allow` header lists the methods it accepts, and so does the message. Like an unknown path, this is answered with or without a key (a valid key is counted against its rate limit).',
    retry: 'Use one of the methods in the Allow header.',
  },
  rate_limited: {
    kind: 'error',
    status: 429,
    message: 'Too many requests for this API key.',
    description: (v) =>
      `Each key may make ${v.rateLimitPerMinute} requests in a ${v.rateLimitWindowS}-second window that starts with its first request. \`Retry-After\` says how many seconds remain; rejected requests do not count.`,
    retry: 'Resend after the number of seconds in Retry-After.',
  },
  internal_error: {
    kind: 'error',
    status: 500,
    message: 'Something went wrong on our side.',
    description:
      'An unexpected failure in the service. The request id in `X-Request-Id` helps support find it.',
    retry: 'Safe to resend the identical request.',
  },
  service_unavailable: {
    kind: 'error',
    status: 503,
    message: 'The service is temporarily unavailable.',
    description:
      'The service is starting or shutting down, or its database is unreachable or did not answer in time. A write may have been stored even so: the database can commit it and its answer be lost on the way.',
    retry:
      'Resend the identical request after a short wait. An order that was stored is answered 200 with the same order and no second event; a webhook endpoint may have been created, so list them before creating it again.',
  },
  malformed_request: {
    kind: 'error',
    status: 400,
    message: 'The request is not valid HTTP.',
    description:
      'The request line or a header could not be parsed (an unknown method, a control character in the path, a malformed Content-Length, Transfer-Encoding or chunk, an HTTP/1.1 request without a Host header), so nothing was processed. The connection is closed after this answer.',
    retry: 'Fix the request (usually the HTTP client or a proxy) and send it on a new connection.',
  },
  expectation_failed: {
    kind: 'error',
    status: 417,
    message: 'The Expect header asks for something other than 100-continue.',
    description:
      'The only expectation the service meets is `Expect: 100-continue`; a request with any other is refused before it is processed (RFC 9110). The connection is closed after this answer.',
    retry: 'Resend without the Expect header (or with `Expect: 100-continue`).',
  },
  headers_too_large: {
    kind: 'error',
    status: 431,
    message: (v) => `The request line and headers are larger than ${binarySize(v.headerBytes)}.`,
    description: (v) =>
      `The request line and all headers together may take up to ${binarySize(v.headerBytes)} (${v.headerBytes} bytes); nothing was processed. The connection is closed after this answer.`,
    retry: NO_RETRY,
  },
  webhook_url_invalid: {
    kind: 'error',
    status: 422,
    message: 'The webhook URL is not a valid https URL.',
    description:
      "Webhook targets must be https URLs without embedded credentials, on a hostname that resolves. An http:// URL is refused whatever the service's settings, and the message says how to receive webhooks on your own machine instead: `npx order-intake listen --base-url <this service> --forward-to <local URL>`, which forwards them to an http:// or localhost URL.",
    retry: NO_RETRY,
  },
  webhook_target_blocked: {
    kind: 'error',
    status: 422,
    message: `The webhook target resolves to a private or reserved address. ${LOCAL_WEBHOOKS}`,
    description: `Every resolved address is checked; any private, loopback, link-local or reserved one refuses the URL, so a webhook endpoint cannot be \`localhost\` or an address on your network. To test a webhook handler locally, \`npx order-intake listen --forward-to <local URL>\` (a key with \`webhooks:manage\`) receives your organization's events over a connection it opens to the service and POSTs each one, signed, to the local URL. ${ALLOW_PRIVATE} (a list of CIDRs, empty by default) exempts ranges on a service run for development or tests; never set it in production, where it would let endpoints reach internal addresses.`,
    retry: NO_RETRY,
  },
  webhook_limit_reached: {
    kind: 'error',
    status: 422,
    message: (v) => `This environment already has ${v.maxActiveEndpoints} active webhook endpoints.`,
    description: 'Delete an endpoint before registering another one.',
    retry: NO_RETRY,
  },
  listen_limit_reached: {
    kind: 'error',
    status: 422,
    message: (v) => `This organization already has ${v.maxListenStreams} open listen sessions.`,
    description: (v) =>
      `At most ${v.maxListenStreams} streams of \`GET /v1/webhook-events/stream\` (listen sessions) may be open per organization at once, both environments and every instance together; the stream is refused before it starts. A session of an instance that stopped without closing it counts until its lease of ${v.listenLeaseS} seconds ends.`,
    retry: 'Close another listen session first; do not resend unchanged.',
  },
  replay_in_progress: {
    kind: 'error',
    status: 409,
    message: 'A replay of this webhook endpoint is still running.',
    description:
      'An endpoint has at most one replay running at a time (`POST /v1/webhook-endpoints/{id}/replay`); nothing was queued. `GET /v1/webhook-endpoints/{id}/replay` shows how far it got: it is finished once its `status` is `completed` or `cancelled`.',
    retry: 'Resend once the running replay has finished.',
  },
  test_key_required: {
    kind: 'error',
    status: 403,
    message: 'This operation needs a test API key.',
    description:
      '`POST /v1/webhook-events/trigger` sends sample events to test listen sessions only; a live key gets this code. Live events come from real live orders.',
    retry: NO_RETRY,
  },
  product_already_exists: {
    kind: 'error',
    status: 409,
    message: 'A product with this SKU already exists in the organization.',
    description: 'Operator API: SKUs are unique per organization.',
    retry: NO_RETRY,
  },
  upload_url_invalid: {
    kind: 'error',
    status: 403,
    message: 'The upload URL is invalid or has expired.',
    description: (v) =>
      `The signature does not match, the slot is unknown, or the URL is older than its lifetime (${v.uploadUrlTtlS} seconds).`,
    retry: 'Request a new upload slot.',
  },
  upload_too_large: {
    kind: 'error',
    status: 413,
    message: (v) => `The file is larger than ${v.maxUploadBytes} bytes.`,
    description: 'Nothing was stored.',
    retry: NO_RETRY,
  },
  upload_already_referenced: {
    kind: 'error',
    status: 409,
    message: 'The upload is already referenced by an accepted order and cannot be replaced.',
    description: 'Files of accepted orders are permanent.',
    retry: 'Request a new upload slot for new content.',
  },
  session_required: {
    kind: 'error',
    status: 401,
    message: 'Sign in to the dashboard first.',
    description:
      'Dashboard API (`/dashboard/api`): the request carries no session cookie, or its session ended (signed out, password changed, member removed) or expired (idle or absolute limit).',
    retry: 'Sign in again.',
  },
  csrf_failed: {
    kind: 'error',
    status: 403,
    message: 'The request did not come from the dashboard.',
    description:
      'Dashboard API: every state-changing request must come from the dashboard itself: its `Origin` header names the service, and its `X-CSRF-Token` header holds the token the dashboard received from `GET /dashboard/api/session`. Nothing was changed.',
    retry: 'Reload the dashboard and try again.',
  },
  role_required: {
    kind: 'error',
    status: 403,
    message: 'Your role does not allow this.',
    description:
      'Dashboard API: roles are `owner` (everything, members too), `developer` (keys, webhooks, orders, products) and `viewer` (read only). The message names the role needed.',
    retry: 'Ask an owner of the organization.',
  },
  sign_in_failed: {
    kind: 'error',
    status: 401,
    message: 'The email or password is incorrect.',
    description:
      'Dashboard sign-in: the same answer for an unknown email and a wrong password, so it reveals nothing about which accounts exist.',
    retry: 'Check the email and password.',
  },
  sign_in_throttled: {
    kind: 'error',
    status: 429,
    message: 'Too many sign-in attempts.',
    description: (v) =>
      `Dashboard sign-in: at most ${v.signInPerAccountAndAddress} attempts per account from one network address, and ${v.signInPerAddress} per network address, in a ${v.rateLimitWindowS}-second window. \`Retry-After\` and the message say how many seconds remain.`,
    retry: 'Wait the number of seconds in Retry-After.',
  },
  invitation_invalid: {
    kind: 'error',
    status: 404,
    message: 'This invitation link is unknown, already used, revoked or expired.',
    description: (v) =>
      `Dashboard invitations are single-use and valid ${v.invitationTtlDays} days. Every kind of bad link gets this same answer.`,
    retry: 'Ask an owner of the organization (or the operator) for a new invitation.',
  },
  password_reset_invalid: {
    kind: 'error',
    status: 404,
    message: 'This password reset link is unknown, already used, replaced by a newer one or expired.',
    description: (v) =>
      `Dashboard password resets are single-use and valid ${v.passwordResetTtlMinutes} minutes; a newer link for the same account, or a password change, makes an unused one void. Every kind of bad link gets this same answer.`,
    retry: 'Ask an owner of the organization (or the operator) for a new link.',
  },
  member_exists: {
    kind: 'error',
    status: 409,
    message: 'An account with this email already exists.',
    description: 'Dashboard: an email address belongs to one account, in one organization.',
    retry: NO_RETRY,
  },
  production_conflict: {
    kind: 'error',
    status: 409,
    message: 'The order changed since you saw it; nothing was done.',
    description:
      'A production change carries the status its caller saw (`expected_status`: always in the operator console and `npm run admin`, optionally on `POST /admin/v1/production-orders/{id}/status`; the dashboard\u2019s order page sends the time of the order\u2019s last change). When someone changed the order first (another operator, or a member who cancelled it), or the item\u2019s job is already completed, the change is refused: nothing is written and no event is sent. The message names the current status.',
    retry: 'Reload the order and decide again.',
  },
  last_owner: {
    kind: 'error',
    status: 409,
    message: 'An organization keeps at least one owner.',
    description:
      'Dashboard: the last owner of an organization can be neither removed nor given another role. Make another member owner first.',
    retry: NO_RETRY,
  },
  operator_self_removal: {
    kind: 'error',
    status: 422,
    message: 'An operator cannot remove their own account.',
    description:
      'Operator console: another operator removes an operator account, or the operator token does (`DELETE /admin/v1/operators/{id}`, `npm run admin -- operators remove`). The token always remains, so the platform is never left without an operator. Nothing was changed.',
    retry: NO_RETRY,
  },
  password_incorrect: {
    kind: 'error',
    status: 403,
    message: 'The current password is incorrect.',
    description: 'Dashboard: changing the password needs the current one. Nothing was changed.',
    retry: 'Enter the current password.',
  },
  // Codes inside errors[] of validation_failed.
  required: entry('A required field is missing.'),
  invalid_type: entry('The field has the wrong JSON type (for example a string where a number is expected).'),
  invalid_format: entry(
    'The value does not have the required format (currency code, timestamp, UUID, or text with NUL bytes or lone surrogates).',
  ),
  too_short: entry('The string is shorter than allowed.'),
  too_long: entry('The string (or a personalization key) is longer than allowed.'),
  too_small: entry('The number is below the allowed minimum.'),
  too_large: entry('The number is above the allowed maximum.'),
  too_few: entry('The array has fewer entries than allowed.'),
  too_many: entry(
    'The array or object has more entries than allowed (items, files, personalization fields).',
  ),
  unknown_field: entry(
    'The field is not part of the request schema; check its spelling. When a known field is close (`external_id` for `external_order_id`), the message asks whether you meant it.',
  ),
  file_not_found: entry(
    'The upload_id is unknown, its PUT never succeeded, it expired, or the file is empty, truncated or unrecognizable.',
  ),
  file_type_not_allowed: entry('The detected content type of the file is not allowed; the message names it.'),
  file_too_complex: entry(
    ({ svg }) =>
      `The SVG file is too complex to sanitize: more than ${svg.elements} elements, ${svg.nodes} nodes (elements, attributes and texts), ${svg.depth} levels of nesting or ${svg.attributesPerElement} attributes on one element, entities expanding to more than ${binarySize(svg.entityExpansion, ['', 'KiB', 'MiB'])}, or it needs more than ${svg.timeLimitMs / 1000} s or ${binarySize(svg.memoryLimitMb * 1024 * 1024)} to sanitize. The message names the limit. Simplify the file or send it as PDF.`,
  ),
} as const satisfies Record<string, CatalogSource>

function entry(description: Text) {
  return { kind: 'entry', status: 422, message: description, description, retry: FIX_FIELDS } as const
}

export type ErrorCode = keyof typeof ERROR_CATALOG
export type EntryCode = {
  [K in ErrorCode]: (typeof ERROR_CATALOG)[K]['kind'] extends 'entry' ? K : never
}[ErrorCode]
export const ERROR_CODES = Object.keys(ERROR_CATALOG) as ErrorCode[]
export const TOP_LEVEL_CODES = ERROR_CODES.filter((c) => ERROR_CATALOG[c].kind === 'error')

/** The catalog with its texts stated for the limits in force. */
export type ErrorTexts = Record<ErrorCode, CatalogEntry>

export function errorTexts(values: CatalogValues): ErrorTexts {
  const text = (t: Text) => (typeof t === 'function' ? t(values) : t)
  const entries = ERROR_CODES.map((code) => {
    const e: CatalogSource = ERROR_CATALOG[code]
    const rendered = {
      ...e,
      message: text(e.message),
      description: text(e.description),
      retry: text(e.retry),
    }
    return [code, rendered] as const
  })
  return Object.fromEntries(entries) as ErrorTexts
}

export interface ValidationEntry {
  code: ErrorCode
  message: string
  field: string
}

export class AppError extends Error {
  /** The message given where the error was raised; without one, the answer states the catalog's. */
  readonly detail: string | undefined
  /** What this request adds to the catalog's message (the catalog's text comes first). */
  readonly hint: string | undefined
  readonly code: ErrorCode
  readonly status: number
  readonly field: string | undefined
  readonly errors: ValidationEntry[] | undefined
  readonly headers: Record<string, string> | undefined

  constructor(
    code: ErrorCode,
    options: {
      message?: string
      hint?: string
      field?: string
      errors?: ValidationEntry[]
      headers?: Record<string, string>
    } = {},
  ) {
    const fixed: Text = ERROR_CATALOG[code].message
    super(options.message ?? withHint(typeof fixed === 'string' ? fixed : code, options.hint))
    this.detail = options.message
    this.hint = options.hint
    this.code = code
    this.status = ERROR_CATALOG[code].status
    this.field = options.field
    this.errors = options.errors?.slice(0, MAX_VALIDATION_ENTRIES)
    this.headers = options.headers
  }

  /** validation_failed with its entries; the top-level field is set when exactly one entry exists. */
  static validation(errors: ValidationEntry[], message?: string): AppError {
    const capped = errors.slice(0, MAX_VALIDATION_ENTRIES)
    return new AppError('validation_failed', {
      ...(message ? { message } : {}),
      errors: capped,
      ...(capped.length === 1 ? { field: capped[0]!.field } : {}),
    })
  }
}

/** A catalog message followed by what one request adds to it. */
export function withHint(message: string, hint: string | undefined): string {
  return hint ? `${message} ${hint}` : message
}

/** 413 request_too_large stating the endpoint's limit. */
export function bodyTooLarge(limit: number | undefined): AppError {
  if (!limit) return new AppError('request_too_large')
  return new AppError('request_too_large', {
    message: `The request body is larger than ${binarySize(limit)} (${limit} bytes), the limit of this endpoint.`,
  })
}

export function docUrl(publicBaseUrl: string, code: string): string {
  return `${publicBaseUrl}/developers/errors/${code}`
}
