import { type KeyObject, randomBytes } from 'node:crypto'
import type { LookupAddress } from 'node:dns'
import { EventEmitter } from 'node:events'
import { isIPv6 } from 'node:net'
import { hostname } from 'node:os'
import type { Readable } from 'node:stream'
import type { FastifyBaseLogger } from 'fastify'
import { Agent } from 'undici'
import type { Database, Listen } from '../../db/database.ts'
import type { Clock } from '../../lib/clock.ts'
import { createSecretBox, type SecretBox } from '../../lib/secret-box.ts'
import { serviceSecret } from '../../lib/service-secrets.ts'
import { FairShare, type Ticket } from './fair-share.ts'
import { interimTolerantConnector } from './interim-responses.ts'
import { type ClaimedDelivery, claimDue } from './outbox/claim.ts'
import { type AttemptResult, completeAttempts } from './outbox/complete.ts'
import { nextDueAt } from './outbox/next-due.ts'
import { WAKE_CHANNEL } from './outbox/outbox.service.ts'
import { releaseClaims } from './outbox/release.ts'
import { SIGNATURE_HEADER, signatureHeader, signingKey } from './signing.ts'
import { disableFailingEndpoints } from './webhooks.service.ts'

export const USER_AGENT = 'Service-Webhooks/1.0'
export const DISABLE_AFTER_FAILURES = 25
const SNIPPET_CHARS = 1024
const CLAIM_WAIT_MS = 50
/** Most rows one claim takes, and most attempt results one statement writes. */
const MAX_BATCH = 128

export interface DispatcherOptions {
  db: Database
  clock: Clock
  log: FastifyBaseLogger
  listen: Listen
  retryDelaysMs: readonly number[]
  timeoutMs: number
  /**
   * Slots of this instance: attempts in flight at once, each for at most
   * slotHoldMs while it waits for its answer (see fair-share.ts).
   */
  concurrency?: number
  /**
   * Attempts of slow endpoints (with an attempt unanswered after
   * slotHoldMs) this instance starts while fewer than this many are slow
   * (default 512).
   */
  slowConcurrency?: number
  /** How long an attempt may hold a slot waiting for its answer (default 250 ms). */
  slotHoldMs?: number
  /**
   * Attempts in flight at once to one endpoint on this instance (default 16,
   * at most `concurrency`): the most connections it opens to one receiver.
   */
  endpointConcurrency?: number
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
  /**
   * Longest a success's result waits in the worker for a batch of results to
   * fill before it is written (default 10 ms).
   */
  resultWaitMs?: number
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

/** An endpoint as the worker sends to it. */
interface Target {
  url: string
  /** Pinned addresses, comma-separated. */
  pinned: string
  agent: Agent
  origin: string
  path: string
  /** The endpoint's encrypted secret, and the signing key derived from it. */
  secret?: string
  key?: KeyObject
}

/**
 * One attempt in flight, and the signal that aborts its request: by its
 * deadline or by shutdown. undici takes an EventEmitter as a request's signal
 * (`aborted`, `reason` and an 'abort' event) as well as an AbortSignal; an
 * emitter costs about a third of an AbortController with its EventTarget, once
 * per attempt.
 */
class Flight extends EventEmitter {
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

/** The first `n` characters (code points, so a pair of surrogates stays whole). */
function firstChars(text: string, n: number): string {
  if (text.length <= n) return text
  let units = 0
  for (let count = 0; count < n && units < text.length; count++) {
    units += text.codePointAt(units)! > 0xffff ? 2 : 1
  }
  return text.slice(0, units)
}

/**
 * The beginning of a response body, for the delivery log: its first
 * SNIPPET_CHARS characters, decoded as a whole (a character split across
 * chunks stays whole), NUL replaced by U+FFFD (PostgreSQL text holds no NUL).
 * A body cut off after the status arrived does not change the verdict: what
 * came is kept.
 */
function readSnippet(body: Readable): Promise<string | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let bytes = 0
    const finish = () => {
      body.destroy()
      if (bytes === 0) return resolve(null)
      const text = firstChars(Buffer.concat(chunks).toString('utf8'), SNIPPET_CHARS)
      resolve(text.replaceAll('\u0000', '\uFFFD'))
    }
    body.on('data', (chunk: Buffer) => {
      chunks.push(chunk)
      bytes += chunk.length
      // Four bytes hold any character: enough bytes for SNIPPET_CHARS of them.
      if (bytes >= SNIPPET_CHARS * 4) finish()
    })
    body.once('end', finish)
    body.once('error', finish)
  })
}

export function createDispatcher(options: DispatcherOptions) {
  const { db, clock, log } = options
  const concurrency = options.concurrency ?? 128
  const endpointConcurrency = Math.min(concurrency, options.endpointConcurrency ?? 16)
  const pollIntervalMs = options.pollIntervalMs ?? 1000
  const workerId = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`
  // Long enough for a whole attempt; an attempt of a worker that died is taken
  // again once this runs out.
  const leaseMs = options.leaseMs ?? options.timeoutMs + 30_000
  // A busy worker claims in batches of as many rows as it has slots (at most
  // MAX_BATCH), and writes results in batches of that size too: claims of many
  // rows cost PostgreSQL less per row than many small ones (measured on a
  // backlog: 46-53 us of database CPU per delivery, against 53-75 with claims at
  // 16 free slots). It holds one batch ahead of its slots: a slot that frees
  // starts the next attempt at once instead of waiting for a claim round trip
  // (measured on backlogs, alternating: 11.4-14.3 k deliveries/s against
  // 10.4-12.3 k without). Slots held by slow endpoints do not hold the rest
  // back: once CLAIM_WAIT_MS have passed since the last claim, the worker claims
  // whatever fits.
  const batchSize = Math.max(1, Math.min(MAX_BATCH, concurrency))
  let lastClaimAt = 0
  /**
   * Attempts the worker may still take on: free slots plus one batch ahead,
   * less those waiting for a slot (those of slow endpoints wait for the lane).
   */
  const room = () => concurrency + batchSize - ready.fast - (ready.size - ready.laneWaiting)
  const shouldClaim = (free: number) =>
    free >= batchSize || (free > 0 && (ready.fast === 0 || performance.now() - lastClaimAt >= CLAIM_WAIT_MS))
  /**
   * How long a claimed attempt may wait for a slot: it must still be sent
   * within its lease, or another worker could take it meanwhile. Attempts
   * waiting longer (all slots held by slow endpoints, or their own
   * endpoint at its cap and slow) are given back.
   */
  const maxWaitMs = leaseMs - options.timeoutMs - Math.min(5000, (leaseMs - options.timeoutMs) / 2)
  const slotHoldMs = options.slotHoldMs ?? 250
  /** Claimed attempts waiting, and those in flight, shared out between organizations and endpoints. */
  const ready = new FairShare({
    slots: concurrency,
    lane: options.slowConcurrency ?? 512,
    endpointCap: endpointConcurrency,
    holdMs: slotHoldMs,
  })
  let sweeper: NodeJS.Timeout | undefined
  const inFlight = new Map<string, Flight>()
  /** Per endpoint: the HTTP agent bound to its pinned addresses, and its parsed URL. */
  const targets = new Map<string, Target>()
  let box: SecretBox | undefined
  let running = false
  let stopping = false
  let wake: (() => void) | undefined
  let loopDone: Promise<void> | undefined
  let unlisten: (() => Promise<void>) | undefined

  function poke() {
    wake?.()
  }

  /** An endpoint's URL and addresses never change after creation; the entry is rebuilt if they differ. */
  function targetFor(endpointId: string, url: string, pinned: string): Target {
    const cached = targets.get(endpointId)
    if (cached?.url === url && cached.pinned === pinned) return cached
    void cached?.agent.close()
    const agent = new Agent({
      connect: interimTolerantConnector({
        lookup: pinnedLookup(pinned.split(',')) as never,
        timeout: options.timeoutMs,
        ...(options.ca ? { ca: options.ca } : {}),
      }),
      keepAliveTimeout: 30_000,
      connections: endpointConcurrency,
    })
    const parsed = new URL(url)
    const target: Target = {
      url,
      pinned,
      agent,
      origin: parsed.origin,
      path: `${parsed.pathname}${parsed.search}`,
      secret: undefined,
      key: undefined,
    }
    targets.set(endpointId, target)
    return target
  }

  /**
   * One POST. The attempt's flight is aborted by its own deadline (which
   * covers connecting, TLS, headers and body: one timer, cleared when the
   * attempt ends) or by shutdown; `flight.timedOut` tells the two apart.
   */
  async function send(
    target: Target,
    headers: Record<string, string>,
    body: string,
    flight: Flight,
  ): Promise<Outcome> {
    const started = performance.now()
    const timer = setTimeout(() => {
      flight.timedOut = true
      flight.abort(new DOMException('webhook attempt timed out', 'TimeoutError'))
    }, options.timeoutMs)
    try {
      const res = await target.agent.request({
        origin: target.origin,
        path: target.path,
        method: 'POST',
        headers,
        body,
        signal: flight,
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
      })
      // The body is ignored for the verdict; its beginning goes to the log.
      const snippet = await readSnippet(res.body)
      const durationMs = Math.round(performance.now() - started)
      if (res.statusCode >= 200 && res.statusCode < 300) {
        return { ok: true, status: res.statusCode, snippet, durationMs }
      }
      // 3xx included: redirects are never followed.
      return { ok: false, errorCode: 'http_error', status: res.statusCode, snippet, durationMs }
    } catch (err) {
      return {
        ok: false,
        errorCode: classify(err, flight.timedOut),
        status: null,
        snippet: null,
        durationMs: Math.round(performance.now() - started),
      }
    } finally {
      clearTimeout(timer)
    }
  }

  function retryAt(attempts: number, now: Date): Date | null {
    const delay = options.retryDelaysMs[attempts - 1]
    if (delay === undefined) return null
    // A little jitter (up to 10 %) keeps a burst of failures from retrying in lockstep.
    return new Date(now.getTime() + delay + Math.floor(Math.random() * delay * 0.1))
  }

  // Results are written in batches, one statement for many attempts: a success's
  // result waits until batchSize results are queued, or for at most resultWaitMs
  // (whatever finished while the previous batch was being written goes into the
  // next one). Batches of up to 128 instead of whatever had finished meanwhile
  // cost PostgreSQL and the worker less per attempt: on a backlog, 64 attempts
  // per write transaction (with claims of 128) instead of 18-19, and a delivery
  // 63-75 us of CPU in all instead of 73-86. A failed attempt's result is
  // written at once, and the attempt keeps its slot until it is stored, so the
  // next claim sees its effect on the endpoint's failure streak (the 25th
  // failure in a row disables it, and the endpoint receives nothing further). A
  // success cannot disable anything: its slot frees at once, and sending does
  // not wait for bookkeeping, unless the writer is behind by a whole set of
  // slots and a batch.
  interface Batch {
    results: AttemptResult[]
    /** Settles once the batch is stored (or given up on). */
    written: PromiseWithResolvers<void>
  }
  const newBatch = (): Batch => ({ results: [], written: Promise.withResolvers<void>() })
  const resultWaitMs = options.resultWaitMs ?? 10
  let queued = newBatch()
  let flushing: Promise<void> | undefined
  /** Results queued or being written. */
  let unwritten = 0
  /** The queued results are to be written without waiting for a whole batch. */
  let urgent = false
  let flushTimer: NodeJS.Timeout | undefined
  const batchDue = () => urgent || queued.results.length >= batchSize

  async function write(batch: AttemptResult[]): Promise<void> {
    // A second try covers a transient failure (a deadlock victim among workers
    // recording for the same endpoints); after that the claims stay ours until
    // the lease ends and the attempts run again.
    for (let tries = 1; tries <= 2; tries++) {
      try {
        const disabled = await completeAttempts(db, workerId, batch, DISABLE_AFTER_FAILURES)
        if (disabled.length > 0) await disableFailingEndpoints(db, disabled, batch[batch.length - 1]!.at)
        for (const id of disabled) {
          log.warn({ endpoint_id: id }, 'webhook endpoint disabled after too many consecutive failures')
        }
        // Attempts to a disabled endpoint that wait for a slot are dropped
        // before any slot frees: the endpoint receives nothing further (their
        // deliveries have failed with endpoint_disabled meanwhile).
        for (const id of disabled) ready.drop(id)
        return
      } catch (err) {
        if (tries === 2)
          log.error({ err, attempts: batch.length }, 'could not record webhook attempt results')
      }
    }
  }

  /** Writes queued results while a batch is due (with `all`, every one of them). */
  function flush(all = false): Promise<void> {
    if (all) urgent = true
    clearTimeout(flushTimer)
    flushTimer = undefined
    flushing ??= (async () => {
      while (queued.results.length > 0 && batchDue()) {
        const batch = queued
        queued = newBatch()
        urgent = false
        await write(batch.results)
        unwritten -= batch.results.length
        batch.written.resolve()
      }
    })().finally(() => {
      flushing = undefined
      // Results queued after the loop's last look are written now or soon.
      schedule()
    })
    return flushing
  }

  /** Writes the queued results at once if a batch is due, else within resultWaitMs. */
  function schedule() {
    if (queued.results.length === 0) return
    if (batchDue()) void flush()
    else if (!flushing) flushTimer ??= setTimeout(() => void flush(true), resultWaitMs)
  }

  /** Writes every result queued so far (shutdown). */
  async function flushAll(): Promise<void> {
    while (flushing || queued.results.length > 0) await flush(true)
  }

  /**
   * Queues a result; resolves when the attempt's slot may be used again: once
   * the result is written if it counts as a failure or the writer is behind by
   * a whole set of slots and a batch, at once otherwise.
   */
  function report(result: AttemptResult): Promise<void> | undefined {
    const batch = queued
    batch.results.push(result)
    unwritten++
    const failure = result.counts && result.status !== 'succeeded'
    const wait = failure || unwritten > concurrency + batchSize
    if (wait) urgent = true
    schedule()
    return wait ? batch.written.promise : undefined
  }

  async function attempt(row: ClaimedDelivery, flight: Flight): Promise<void> {
    if (!row.endpoint_active) {
      const now = clock.now()
      return report({
        deliveryId: row.id,
        endpointId: row.endpoint_id,
        status: 'failed',
        errorCode: 'endpoint_disabled',
        responseStatus: null,
        snippet: null,
        durationMs: null,
        nextAttemptAt: null,
        startedAt: now,
        at: now,
        counts: false,
      })
    }
    const target = targetFor(row.endpoint_id, row.url, row.pinned_addresses)
    // The signing key is derived once per endpoint (and again if its secret differs).
    if (target.secret !== row.secret_encrypted) {
      box ??= createSecretBox(await serviceSecret(db, 'webhook_secret_key'))
      target.key = signingKey(box.open(row.secret_encrypted))
      target.secret = row.secret_encrypted
    }
    const key = target.key!
    const body = row.body
    const startedAt = clock.now()
    // t is taken per attempt, so every retry carries a new t and v1.
    const headers = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'x-service-event-id': row.event_id,
      'x-service-event-type': row.event_type,
      [SIGNATURE_HEADER]: signatureHeader(key, body, Math.floor(Date.now() / 1000)),
    }
    const outcome = await send(target, headers, body, flight)
    // Cut short by shutdown: the attempt did not happen; the claim is given back.
    if (flight.aborted && !flight.timedOut) return
    const at = clock.now()
    const next = outcome.ok ? null : retryAt(row.attempts, at)
    // A success's slot frees at once; a failure's once its result is stored.
    return report({
      deliveryId: row.id,
      endpointId: row.endpoint_id,
      status: outcome.ok ? 'succeeded' : next ? 'pending' : 'failed',
      errorCode: outcome.ok ? null : outcome.errorCode,
      responseStatus: outcome.status,
      snippet: outcome.snippet,
      durationMs: outcome.durationMs,
      nextAttemptAt: next,
      startedAt,
      at,
      counts: true,
    })
  }

  /** Starts waiting attempts while slots (or places in the lane) are free; gives back those that waited too long. */
  function fill() {
    const expired: string[] = []
    while (running) {
      const ticket = ready.next()
      if (ticket === undefined) break
      if (ticket.startedAt - ticket.item.claimedAt > maxWaitMs) {
        expired.push(ticket.item.row.id)
        ready.done(ticket)
      } else start(ticket)
    }
    if (expired.length > 0) {
      releaseClaims(db, expired, workerId).catch((err) =>
        log.error({ err }, 'could not give back webhook attempts that waited too long'),
      )
    }
  }

  /** One attempt, then its slot (or place in the lane) is free again. */
  async function run(ticket: Ticket, flight: Flight): Promise<void> {
    const row = ticket.item.row
    try {
      await attempt(row, flight)
    } catch (err) {
      log.error({ err, delivery_id: row.id }, 'webhook attempt failed unexpectedly')
    } finally {
      inFlight.delete(row.id)
      ready.done(ticket)
      fill()
      // Claim again once a good share of the slots is free, not per attempt.
      if (shouldClaim(room())) poke()
    }
  }

  function start(ticket: Ticket) {
    const flight = new Flight()
    inFlight.set(ticket.item.row.id, flight)
    flight.done = run(ticket, flight)
  }

  /** Frees the slots of attempts unanswered after slotHoldMs, and starts what may go now. */
  function sweep(periodMs: number) {
    if (ready.demoteAged(performance.now(), periodMs) === 0) return
    fill()
    if (shouldClaim(room())) poke()
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
        const free = room()
        if (shouldClaim(free)) {
          lastClaimAt = performance.now()
          // An endpoint whose attempts have been waiting for it here longer
          // than CLAIM_WAIT_MS (a slow one with a backlog, at its cap) is left
          // out of the claim: more of its attempts would only wait, in room
          // that the other endpoints' attempts can use. A slow endpoint gets
          // no more than it can start now.
          const { exclude, limits } = ready.claimPlan(lastClaimAt - CLAIM_WAIT_MS)
          const rows = await claimDue(db, {
            limit: free,
            now: clock.now(),
            leaseMs,
            workerId,
            exclude,
            limits,
          })
          for (const row of rows) ready.push({ row, claimedAt: lastClaimAt })
          fill()
          if (rows.length === free) continue
          const due = await nextDueAt(db, clock.now(), exclude)
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
      const periodMs = Math.max(5, Math.floor(slotHoldMs / 5))
      sweeper = setInterval(() => sweep(periodMs), periodMs).unref()
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
      clearInterval(sweeper)
      // Attempts that never started go back at once (no new attempt starts now).
      await releaseClaims(
        db,
        ready.drop().map((r) => r.row.id),
        workerId,
      )
      const pending = [...inFlight.values()].map((f) => f.done)
      const settled = Promise.all(pending).then(() => true)
      const inTime = await Promise.race([settled, new Promise((r) => setTimeout(() => r(false), graceMs))])
      if (!inTime) {
        const unfinished = [...inFlight.keys()]
        for (const f of inFlight.values()) f.abort(new DOMException('webhook worker stopping', 'AbortError'))
        await Promise.all([...inFlight.values()].map((f) => f.done))
        await releaseClaims(db, unfinished, workerId)
      }
      await flushAll()
      await Promise.all([...targets.values()].map(({ agent }) => agent.close().catch(() => {})))
      targets.clear()
    },
  }
}

export type Dispatcher = ReturnType<typeof createDispatcher>
