import { EventEmitter } from 'node:events'
import { Agent } from 'undici'
import type { Clock } from '../../../lib/clock.ts'
import type { SecretBox } from '../../../lib/secret-box.ts'
import type { ClaimedDelivery } from '../outbox/claim.repo.ts'
import { interimTolerantConnector } from './interim-responses.ts'
import { pinnedLookup } from './pinned-lookup.ts'
import { readSnippet } from './response-snippet.ts'
import { type SigningKeys, signedHeaders, signingKeys } from './signing.ts'
import { type AllowedRanges, isBlockedAddress } from './ssrf.ts'

export const USER_AGENT = 'Service-Webhooks/1.0'

export type AttemptOutcome = 'succeeded' | 'http_error' | 'timeout' | 'connection_error' | 'tls_error'

/** What one attempt's request came to. */
export interface Sent {
  outcome: AttemptOutcome
  /** The response's status; null when none came. */
  status: number | null
  snippet: string | null
  /** What went wrong, in words; null after success. */
  message: string | null
  durationMs: number
  startedAt: Date
  at: Date
  /** The signature's t (unix seconds); null when no request was signed. */
  signedAt: number | null
}

const TLS_CODES = /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|HOSTNAME_MISMATCH|ERR_OSSL)/
const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
])

/** A request that got no response: what went wrong, from the error or its causes. */
export function classifyError(err: unknown, timedOut: boolean): 'timeout' | 'connection_error' | 'tls_error' {
  if (timedOut) return 'timeout'
  let e = err as { code?: string; name?: string; cause?: unknown } | undefined
  for (let depth = 0; e && depth < 4; depth++) {
    if (e.name === 'TimeoutError' || (e.code && TIMEOUT_CODES.has(e.code))) return 'timeout'
    if (e.code && TLS_CODES.test(e.code)) return 'tls_error'
    e = e.cause as typeof e
  }
  return 'connection_error'
}

/** The longest error message kept: enough for a certificate's list of names. */
const MAX_MESSAGE = 300

/**
 * A failed request's reason in words: "HTTP 500", "timed out after 10 s", or
 * the message of the innermost error that carries a code (Node's and undici's
 * own words: "self-signed certificate", "connect ECONNREFUSED 127.0.0.1:443").
 * Such messages name hosts and addresses, never headers or the body.
 */
export function describeFailure(
  outcome: Exclude<AttemptOutcome, 'succeeded'>,
  detail: { status: number | null; err?: unknown; timeoutMs: number },
): string {
  if (outcome === 'http_error') return `HTTP ${detail.status}`
  if (outcome === 'timeout') return `timed out after ${detail.timeoutMs / 1000} s`
  let message: string | undefined
  let e = detail.err as { code?: unknown; message?: unknown; cause?: unknown } | undefined
  for (let depth = 0; e && depth < 4; depth++) {
    if (typeof e.message === 'string' && e.message !== '' && (message === undefined || e.code)) {
      message = e.message
    }
    e = e.cause as typeof e
  }
  const words = message ?? (outcome === 'tls_error' ? 'TLS handshake failed' : 'connection failed')
  return words.length > MAX_MESSAGE ? `${words.slice(0, MAX_MESSAGE - 1)}…` : words
}

/** Why an attempt was not sent to an endpoint whose pinned addresses the policy now refuses. */
export function refusedMessage(refused: readonly string[]): string {
  const list = refused.join(', ')
  return `not sent: this endpoint's address (${list}), pinned when it was created, is private or reserved and no longer allowed by the service; create an endpoint whose host resolves to public addresses`
}

/** A response's verdict: 2xx succeeds; anything else fails, 3xx included (redirects are never followed). */
export function classifyStatus(status: number): 'succeeded' | 'http_error' {
  return status >= 200 && status < 300 ? 'succeeded' : 'http_error'
}

/**
 * One attempt in flight, and the signal that aborts its request: by its
 * deadline or by shutdown. undici takes an EventEmitter as a request's signal
 * (`aborted`, `reason` and an 'abort' event); it costs less than an
 * AbortController with its EventTarget, once per attempt.
 */
export class Flight extends EventEmitter {
  aborted = false
  reason: Error | undefined
  /** Aborted by the attempt's own deadline (not by shutdown). */
  timedOut = false
  done: Promise<void> = Promise.resolve()

  abort(reason: Error) {
    if (this.aborted) return
    this.aborted = true
    this.reason = reason
    this.emit('abort')
  }
}

/** An endpoint as the worker sends to it. */
interface Target {
  url: string
  /** Pinned addresses, comma-separated. */
  pinned: string
  /** Pinned addresses the service's policy refuses now: the endpoint is not sent to while there are any. */
  refused: string[]
  agent: Agent
  origin: string
  path: string
  /** The endpoint's encrypted secret, and the signing keys derived from it. */
  secret: string | undefined
  keys: SigningKeys | undefined
  /** The same for the secret before a rotation, while one is in its grace period. */
  previousSecret: string | null | undefined
  previousKeys: SigningKeys | undefined
}

export interface HttpSenderOptions {
  clock: Clock
  /** The attempt's deadline: connecting, TLS, headers and body. */
  timeoutMs: number
  /** Connections one endpoint's agent opens at most. */
  endpointConcurrency: number
  ca?: string | Buffer | undefined
  /** Private ranges the service allows webhooks to reach now (WEBHOOK_ALLOW_PRIVATE_CIDRS). */
  allowed: AllowedRanges
  /** Opens endpoints' secrets (asked once per endpoint and secret). */
  secretBox: () => Promise<SecretBox>
}

/** Signs and sends attempts, with one HTTP agent per endpoint bound to its pinned addresses. */
export class HttpSender {
  readonly #options: HttpSenderOptions
  readonly #targets = new Map<string, Target>()

  constructor(options: HttpSenderOptions) {
    this.#options = options
  }

  /** Sends one attempt; undefined when shutdown cut it short (the attempt did not happen). */
  async send(row: ClaimedDelivery, flight: Flight): Promise<Sent | undefined> {
    const { clock, timeoutMs } = this.#options
    const target = this.#target(row.endpoint_id, row.url, row.pinned_addresses)
    // The pinned addresses are checked against today's policy, as at creation: any refused one refuses the attempt.
    if (target.refused.length > 0) {
      const at = clock.now()
      return {
        outcome: 'connection_error',
        status: null,
        snippet: null,
        message: refusedMessage(target.refused),
        durationMs: 0,
        startedAt: at,
        at,
        signedAt: null,
      }
    }
    // The signing keys are derived once per endpoint (and again when a secret differs).
    if (target.secret !== row.secret_encrypted) {
      target.keys = signingKeys((await this.#options.secretBox()).open(row.secret_encrypted))
      target.secret = row.secret_encrypted
    }
    if (target.previousSecret !== row.previous_secret_encrypted) {
      const sealed = row.previous_secret_encrypted
      target.previousKeys = sealed ? signingKeys((await this.#options.secretBox()).open(sealed)) : undefined
      target.previousSecret = sealed
    }
    const body = row.body
    const startedAt = clock.now()
    // A rotated secret signs beside the new one until its grace period ends.
    const previous =
      target.previousKeys !== undefined && startedAt.getTime() < row.previous_secret_expires_ms!
        ? target.previousKeys
        : undefined
    // t is taken per attempt, so every retry carries a new t and signatures.
    const signedAt = Math.floor(Date.now() / 1000)
    const headers = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'x-service-event-id': row.event_id,
      'x-service-event-type': row.event_type,
      ...signedHeaders(target.keys!, row.event_id, body, signedAt, previous),
    }
    const started = performance.now()
    // One timer covers connecting, TLS, headers and body; flight.timedOut tells it from shutdown.
    const timer = setTimeout(() => {
      flight.timedOut = true
      flight.abort(new DOMException('webhook attempt timed out', 'TimeoutError'))
    }, timeoutMs)
    let outcome: AttemptOutcome
    let status: number | null = null
    let snippet: string | null = null
    let failure: unknown
    try {
      const res = await target.agent.request({
        origin: target.origin,
        path: target.path,
        method: 'POST',
        headers,
        body,
        signal: flight,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      })
      // The body is ignored for the verdict; its beginning goes to the log.
      snippet = await readSnippet(res.body)
      status = res.statusCode
      outcome = classifyStatus(status)
    } catch (err) {
      outcome = classifyError(err, flight.timedOut)
      failure = err
    } finally {
      clearTimeout(timer)
    }
    const durationMs = Math.round(performance.now() - started)
    if (flight.aborted && !flight.timedOut) return undefined
    const message =
      outcome === 'succeeded' ? null : describeFailure(outcome, { status, err: failure, timeoutMs })
    return { outcome, status, snippet, message, durationMs, startedAt, at: clock.now(), signedAt }
  }

  /** Closes every endpoint's connections. */
  async close(): Promise<void> {
    await Promise.all([...this.#targets.values()].map(({ agent }) => agent.close().catch(() => {})))
    this.#targets.clear()
  }

  /**
   * An endpoint's URL and addresses never change after creation, and the
   * allowed ranges only with the service's settings: the entry is rebuilt if
   * the URL or addresses differ.
   */
  #target(endpointId: string, url: string, pinned: string): Target {
    const cached = this.#targets.get(endpointId)
    if (cached?.url === url && cached.pinned === pinned) return cached
    void cached?.agent.close()
    const { timeoutMs, ca, allowed } = this.#options
    const addresses = pinned.split(',')
    const agent = new Agent({
      connect: interimTolerantConnector({
        lookup: pinnedLookup(addresses) as never,
        timeout: timeoutMs,
        ...(ca ? { ca } : {}),
      }),
      keepAliveTimeout: 30_000,
      connections: this.#options.endpointConcurrency,
    })
    const parsed = new URL(url)
    const path = `${parsed.pathname}${parsed.search}`
    const target: Target = {
      url,
      pinned,
      refused: addresses.filter((a) => isBlockedAddress(a, allowed)),
      agent,
      origin: parsed.origin,
      path,
      secret: undefined,
      keys: undefined,
      previousSecret: undefined,
      previousKeys: undefined,
    }
    this.#targets.set(endpointId, target)
    return target
  }
}
