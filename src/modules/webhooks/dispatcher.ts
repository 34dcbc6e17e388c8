import { randomBytes } from 'node:crypto'
import type { LookupAddress } from 'node:dns'
import { isIPv6 } from 'node:net'
import { hostname } from 'node:os'
import type { FastifyBaseLogger } from 'fastify'
import { sql } from 'kysely'
import { Agent } from 'undici'
import type { Database, Listen } from '../../db/database.ts'
import type { WebhookDeliveryRow } from '../../db/schema.ts'
import type { Clock } from '../../lib/clock.ts'
import { createSecretBox, type SecretBox } from '../../lib/secret-box.ts'
import { serviceSecret } from '../../lib/service-secrets.ts'
import { eventEnvelope } from '../events/events.service.ts'
import {
  claimDue,
  failPendingForEndpoint,
  nextDueAt,
  releaseClaims,
  WAKE_CHANNEL,
} from './deliveries.repo.ts'
import { SIGNATURE_HEADER, signatureHeader } from './signing.ts'

export const USER_AGENT = 'Service-Webhooks/1.0'
export const DISABLE_AFTER_FAILURES = 25
const SNIPPET_CHARS = 1024

export interface DispatcherOptions {
  db: Database
  clock: Clock
  log: FastifyBaseLogger
  listen: Listen
  retryDelaysMs: readonly number[]
  timeoutMs: number
  /** Attempts in flight at once on this instance. */
  concurrency?: number
  /** Longest sleep between looks at the table when nothing wakes the worker. */
  pollIntervalMs?: number
  /** Extra CA certificates for webhook targets (tests); NODE_EXTRA_CA_CERTS works too. */
  ca?: string | Buffer
  /**
   * How long a claim is held before other workers may take the attempt again
   * (default timeoutMs + 30 s). Must outlast an attempt, or two workers could
   * send the same attempt at once.
   */
  leaseMs?: number
}

type Outcome =
  | { ok: true; status: number; snippet: string | null; durationMs: number }
  | {
      ok: false
      errorCode: 'timeout' | 'connection_error' | 'tls_error' | 'http_error'
      status: number | null
      snippet: string | null
      durationMs: number
    }

const TLS_CODES = /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|HOSTNAME_MISMATCH|ERR_OSSL)/
const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
])

function classify(err: unknown, timedOut: boolean): 'timeout' | 'connection_error' | 'tls_error' {
  if (timedOut) return 'timeout'
  let e = err as { code?: string; name?: string; cause?: unknown } | undefined
  for (let depth = 0; e && depth < 4; depth++) {
    if (e.name === 'TimeoutError' || (e.code && TIMEOUT_CODES.has(e.code))) return 'timeout'
    if (e.code && TLS_CODES.test(e.code)) return 'tls_error'
    e = e.cause as typeof e
  }
  return 'connection_error'
}

/**
 * Resolves the webhook host to its pinned addresses only, never to a fresh DNS
 * answer: the connection goes to an address checked at creation, while the
 * hostname stays in SNI and the Host header.
 */
function pinnedLookup(addresses: string[]) {
  const all: LookupAddress[] = addresses.map((address) => ({ address, family: isIPv6(address) ? 6 : 4 }))
  return (
    _hostname: string,
    options: { all?: boolean; family?: number | string },
    callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    const family = options.family === 'IPv6' ? 6 : options.family === 'IPv4' ? 4 : options.family
    const fitting = family === 4 || family === 6 ? all.filter((a) => a.family === family) : all
    if (fitting.length === 0) {
      callback(Object.assign(new Error('no pinned address of that family'), { code: 'ENOTFOUND' }), [])
    } else if (options.all) callback(null, fitting)
    else callback(null, fitting[0]!.address, fitting[0]!.family)
  }
}

export function createDispatcher(options: DispatcherOptions) {
  const { db, clock, log } = options
  const concurrency = options.concurrency ?? 16
  const pollIntervalMs = options.pollIntervalMs ?? 1000
  const workerId = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`
  // Long enough for a whole attempt; an attempt of a worker that died is taken
  // again once this runs out.
  const leaseMs = options.leaseMs ?? options.timeoutMs + 30_000
  const inFlight = new Map<string, { controller: AbortController; done: Promise<void> }>()
  const agents = new Map<string, { key: string; agent: Agent }>()
  let box: SecretBox | undefined
  let running = false
  let stopping = false
  let wake: (() => void) | undefined
  let loopDone: Promise<void> | undefined
  let unlisten: (() => Promise<void>) | undefined

  function poke() {
    wake?.()
  }

  function agentFor(endpointId: string, addresses: string[]): Agent {
    const key = addresses.join(',')
    const cached = agents.get(endpointId)
    if (cached?.key === key) return cached.agent
    void cached?.agent.close()
    const agent = new Agent({
      connect: {
        lookup: pinnedLookup(addresses) as never,
        timeout: options.timeoutMs,
        ...(options.ca ? { ca: options.ca } : {}),
      },
      keepAliveTimeout: 30_000,
      connections: 16,
    })
    agents.set(endpointId, { key, agent })
    return agent
  }

  async function send(
    target: { endpointId: string; url: string; addresses: string[] },
    headers: Record<string, string>,
    body: string,
    shutdown: AbortSignal,
  ): Promise<Outcome> {
    const started = performance.now()
    const deadline = AbortSignal.timeout(options.timeoutMs)
    const signal = AbortSignal.any([deadline, shutdown])
    const url = new URL(target.url)
    try {
      const res = await agentFor(target.endpointId, target.addresses).request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers,
        body,
        signal,
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
      })
      // The body is ignored for the verdict; its beginning goes to the log.
      let snippet = ''
      try {
        for await (const chunk of res.body) {
          snippet += chunk.toString()
          if (snippet.length >= SNIPPET_CHARS) break
        }
      } catch {
        // a body cut off after the status arrived does not change the verdict
      } finally {
        res.body.destroy()
      }
      const durationMs = Math.round(performance.now() - started)
      const text = snippet ? snippet.slice(0, SNIPPET_CHARS) : null
      if (res.statusCode >= 200 && res.statusCode < 300) {
        return { ok: true, status: res.statusCode, snippet: text, durationMs }
      }
      // 3xx included: redirects are never followed.
      return { ok: false, errorCode: 'http_error', status: res.statusCode, snippet: text, durationMs }
    } catch (err) {
      return {
        ok: false,
        errorCode: classify(err, deadline.aborted),
        status: null,
        snippet: null,
        durationMs: Math.round(performance.now() - started),
      }
    }
  }

  function retryAt(attempts: number, now: Date): Date | null {
    const delay = options.retryDelaysMs[attempts - 1]
    if (delay === undefined) return null
    // A little jitter (up to 10 %) keeps a burst of failures from retrying in lockstep.
    return new Date(now.getTime() + delay + Math.floor(Math.random() * delay * 0.1))
  }

  async function record(row: WebhookDeliveryRow, outcome: Outcome): Promise<void> {
    const now = clock.now()
    await db.transaction().execute(async (trx) => {
      const common = {
        response_status: outcome.status,
        response_snippet: outcome.snippet,
        duration_ms: outcome.durationMs,
        locked_until: null,
        locked_by: null,
      }
      const next = outcome.ok ? null : retryAt(row.attempts, now)
      const updated = await trx
        .updateTable('webhook_deliveries')
        .set(
          outcome.ok
            ? { ...common, status: 'succeeded', error_code: null, next_attempt_at: null }
            : {
                ...common,
                status: next ? 'pending' : 'failed',
                error_code: outcome.errorCode,
                next_attempt_at: next,
              },
        )
        .where('id', '=', row.id)
        .where('locked_by', '=', workerId)
        .where('status', '=', 'pending')
        .executeTakeFirst()
      // Our lease ran out and another worker owns the attempt now: its result counts.
      if (Number(updated.numUpdatedRows) !== 1) return
      if (outcome.ok) {
        await trx
          .updateTable('webhook_endpoints')
          .set({ consecutive_failures: 0, last_success_at: now })
          .where('id', '=', row.endpoint_id)
          .execute()
        return
      }
      const endpoint = await trx
        .updateTable('webhook_endpoints')
        .set({ consecutive_failures: sql`consecutive_failures + 1`, last_failure_at: now })
        .where('id', '=', row.endpoint_id)
        .returning(['consecutive_failures', 'is_active'])
        .executeTakeFirst()
      if (endpoint?.is_active && endpoint.consecutive_failures >= DISABLE_AFTER_FAILURES) {
        await trx
          .updateTable('webhook_endpoints')
          .set({ is_active: false, disabled_reason: 'too_many_failures', disabled_at: now })
          .where('id', '=', row.endpoint_id)
          .execute()
        await failPendingForEndpoint(trx, row.endpoint_id)
        log.warn(
          { endpoint_id: row.endpoint_id },
          'webhook endpoint disabled after too many consecutive failures',
        )
      }
    })
  }

  async function attempt(row: WebhookDeliveryRow, controller: AbortController): Promise<void> {
    const target = await db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
      .innerJoin('events as e', 'e.id', 'd.event_id')
      .select([
        'w.url',
        'w.pinned_addresses',
        'w.secret_encrypted',
        'w.is_active',
        'e.id as event_id',
        'e.type',
        'e.created_at',
        'e.data',
      ])
      .where('d.id', '=', row.id)
      .executeTakeFirstOrThrow()
    if (!target.is_active) {
      await db
        .updateTable('webhook_deliveries')
        .set({ status: 'failed', error_code: 'endpoint_disabled', next_attempt_at: null, locked_until: null })
        .where('id', '=', row.id)
        .where('locked_by', '=', workerId)
        .execute()
      return
    }
    box ??= createSecretBox(await serviceSecret(db, 'webhook_secret_key'))
    const body = JSON.stringify(
      eventEnvelope({
        id: target.event_id,
        type: target.type,
        created_at: target.created_at,
        data: target.data,
      }),
    )
    // t is taken per attempt, so every retry carries a new t and v1.
    const headers = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'x-service-event-id': target.event_id,
      'x-service-event-type': target.type,
      [SIGNATURE_HEADER]: signatureHeader(
        box.open(target.secret_encrypted),
        body,
        Math.floor(Date.now() / 1000),
      ),
    }
    const outcome = await send(
      { endpointId: row.endpoint_id, url: target.url, addresses: target.pinned_addresses },
      headers,
      body,
      controller.signal,
    )
    // Cut short by shutdown: the attempt did not happen; the claim is given back.
    if (controller.signal.aborted) return
    await record(row, outcome)
  }

  function start(row: WebhookDeliveryRow) {
    const controller = new AbortController()
    const done = attempt(row, controller)
      .catch((err) => log.error({ err, delivery_id: row.id }, 'webhook attempt failed unexpectedly'))
      .finally(() => {
        inFlight.delete(row.id)
        poke()
      })
    inFlight.set(row.id, { controller, done })
  }

  async function sleep(ms: number) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.max(0, ms))
      wake = () => {
        clearTimeout(timer)
        resolve()
      }
    })
    wake = undefined
  }

  async function loop() {
    while (running) {
      let delay = pollIntervalMs
      try {
        const free = concurrency - inFlight.size
        if (free > 0) {
          const rows = await claimDue(db, { limit: free, now: clock.now(), leaseMs, workerId })
          for (const row of rows) start(row)
          if (rows.length === free) continue
          const due = await nextDueAt(db)
          if (due) delay = Math.min(delay, due.getTime() - clock.now().getTime())
        }
      } catch (err) {
        if (!running) break
        log.error({ err }, 'webhook worker could not claim deliveries')
      }
      if (running) await sleep(delay)
    }
  }

  return {
    workerId,
    async start() {
      if (running) return
      running = true
      unlisten = await options.listen(WAKE_CHANNEL, poke)
      loopDone = loop()
    },

    /** Stops claiming, lets attempts in flight finish for up to graceMs, then gives the rest back. */
    async stop(graceMs = 5000) {
      if (!running || stopping) return
      stopping = true
      running = false
      poke()
      await unlisten?.().catch(() => {})
      await loopDone
      const pending = [...inFlight.values()].map((f) => f.done)
      const settled = Promise.all(pending).then(() => true)
      const inTime = await Promise.race([settled, new Promise((r) => setTimeout(() => r(false), graceMs))])
      if (!inTime) {
        const unfinished = [...inFlight.keys()]
        for (const f of inFlight.values()) f.controller.abort()
        await Promise.all([...inFlight.values()].map((f) => f.done))
        await releaseClaims(db, unfinished, workerId)
      }
      await Promise.all([...agents.values()].map(({ agent }) => agent.close().catch(() => {})))
      agents.clear()
    },
  }
}

export type Dispatcher = ReturnType<typeof createDispatcher>
