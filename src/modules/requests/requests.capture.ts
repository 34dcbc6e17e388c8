import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { redactSecrets, replaceSpans, secretSpans } from '../../http/redaction.ts'
import type { Clock } from '../../lib/clock.ts'
import { newId } from '../../lib/ids.ts'
import { activeTraceId } from '../../telemetry/tracing.ts'
import type { RequestLine, RequestRecorder } from './requests.recorder.ts'

/** Bodies are kept up to this many bytes (the rest is cut; the size is kept). */
export const KEPT_BODY_BYTES = 16 * 1024

declare module 'fastify' {
  interface FastifyRequest {
    /** The error answer as sent, for the request log. */
    answerForLog: string | undefined
    /** The order a POST /v1/orders created or answered again, for the request log. */
    orderForLog: string | undefined
  }
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS'])
const utf8 = new TextDecoder('utf-8')

/**
 * What a read of a body holds past what it may keep: a secret the read's end
 * runs through begins within these last characters, so they are left out.
 * LOOKAHEAD covers the forms' heads written with every character escaped
 * (6 characters each, `\u005f`): `svc_live_`, `Bearer ` and 8 characters, a
 * URL's `user:password@`; each known secret adds 6 characters per character.
 */
export const LOOKAHEAD = 1024
/** How far a body is read at most to find its first KEPT_BODY_BYTES once its secrets are replaced. */
const MOST_READ = 16 * KEPT_BODY_BYTES

/** The start of the UTF-8 character at byte `end` (continuation bytes are 10xxxxxx). */
function charStart(bytes: Uint8Array, end: number): number {
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--
  return end
}

const utf8Encoder = new TextEncoder()
const encoded = new Uint8Array(KEPT_BODY_BYTES)

/** The text's first KEPT_BODY_BYTES of UTF-8 (encodeInto writes whole characters only); undefined if all of it fits. */
function cut(text: string): string | undefined {
  if (text.length * 3 <= KEPT_BODY_BYTES) return undefined
  const { read } = utf8Encoder.encodeInto(text, encoded)
  return read < text.length ? text.slice(0, read) : undefined
}

/**
 * The first KEPT_BODY_BYTES of a body as text once its secrets are replaced,
 * without a character cut in half: replacing comes first, so a secret the cut
 * runs through leaves no part. A body may have 10 MB: only KEPT_BODY_BYTES and
 * the margin are read, read again twice as far while what is left is shorter
 * than what is kept (secrets replaced by a shorter word), up to MOST_READ.
 */
export function keptBody(raw: Buffer, secrets: string[] = []): string {
  const margin = LOOKAHEAD + 6 * Math.max(0, ...secrets.map((s) => s.length))
  for (let size = KEPT_BODY_BYTES + margin; ; size *= 2) {
    if (raw.length <= size) {
      const redacted = redactSecrets(utf8.decode(raw), secrets)
      return cut(redacted) ?? redacted
    }
    const text = utf8.decode(raw.subarray(0, charStart(raw, size)))
    let until = text.length - margin
    // Not between the two halves of a surrogate pair.
    if ((text.charCodeAt(until) & 0xfc00) === 0xdc00) until--
    const redacted = replaceSpans(text, secretSpans(text, secrets), until)
    const kept = cut(redacted)
    if (kept !== undefined || size >= MOST_READ) return kept ?? redacted
  }
}

function contentLength(request: FastifyRequest): number | null {
  const given = request.headers['content-length']
  const n = given === undefined ? Number.NaN : Number(given)
  return Number.isSafeInteger(n) && n >= 0 ? n : null
}

/**
 * The line of a request made with an API key, built after its answer was
 * sent. Bodies are kept for answers of 400 and above and for successful
 * writes; successful reads keep the line only. The path's secret query
 * parameters and any key or webhook secret in a body are replaced.
 */
export function lineOf(
  request: FastifyRequest,
  reply: FastifyReply,
  options: { now: Date; secrets: string[] },
): RequestLine | undefined {
  const { secrets } = options
  const principal = request.principal
  if (!principal) return undefined
  const status = reply.statusCode
  const keepBody = status >= 400 || !READS.has(request.method)
  const raw = keepBody ? request.rawJsonBody : undefined
  const answer = request.answerForLog
  const type = request.headers['content-type']
  return {
    id: newId(),
    organization_id: principal.organizationId,
    environment: principal.environment,
    key_id: principal.keyId,
    key_prefix: principal.keyPrefix,
    created_at: new Date(options.now.getTime() - reply.elapsedTime),
    method: request.method,
    path: redactSecrets(request.url, secrets),
    status,
    error_code: reply.appError?.code ?? null,
    duration_ms: Math.round(reply.elapsedTime * 100) / 100,
    request_id: request.id,
    order_id: request.orderForLog ?? null,
    content_type: typeof type === 'string' ? type.slice(0, 200) : null,
    request_body: raw ? keptBody(raw, secrets) : null,
    request_body_bytes: raw ? raw.length : keepBody ? contentLength(request) : null,
    response_body: answer === undefined ? null : redactSecrets(answer, secrets),
    trace_id: activeTraceId(),
  }
}

/**
 * Records every request made with an API key (the /v1 routes) in the request
 * log: the error answer is noted as it is sent, the line is handed to the
 * recorder once the answer is out, so no request waits for its line.
 */
export function registerRequestLog(
  app: FastifyInstance,
  deps: { recorder: RequestRecorder; clock: Clock; secrets?: string[] },
): void {
  const secrets = deps.secrets ?? []
  app.decorateRequest('answerForLog', undefined)
  app.decorateRequest('orderForLog', undefined)
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.principal && reply.statusCode >= 400 && typeof payload === 'string') {
      request.answerForLog = payload
    }
    done(null, payload)
  })
  app.addHook('onResponse', (request, reply, done) => {
    if (request.principal) {
      const line = lineOf(request, reply, { now: deps.clock.now(), secrets })
      if (line) deps.recorder.record(line)
    }
    done()
  })
}
