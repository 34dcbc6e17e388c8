import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import { createSecretBox, type SecretBox } from '../../../lib/secret-box.ts'
import { serviceSecret } from '../../../lib/service-secrets.ts'
import { completeAttempts } from '../outbox/complete.repo.ts'
import { WAKE_CHANNEL } from '../outbox/outbox.service.ts'
import { settleDisabledEndpoints } from '../webhooks.service.ts'
import { createAttempt } from './attempt.ts'
import { Claimer } from './claimer.ts'
import { type DispatcherOptions, withDefaults } from './dispatcher-options.ts'
import { FairShare, type Ticket } from './fair-share.ts'
import { Flight, HttpSender } from './http-attempt.ts'
import { ReplayFeeder } from './replay-feeder.ts'
import { ResultWriter } from './result-writer.ts'

export type { DispatcherOptions } from './dispatcher-options.ts'
export const DISABLE_AFTER_FAILURES = 25

/** The options with their defaults (dispatcher-options.ts). */
type WorkerOptions = ReturnType<typeof withDefaults>

/**
 * The worker's parts, wired together: the fair queue of claimed attempts,
 * the claimer, the sender, the replay feeder, and the result writer, which
 * settles the endpoints a batch of results disabled.
 */
function workerParts(options: WorkerOptions, workerId: string) {
  const { db, clock, log, concurrency, batchSize } = options
  let box: SecretBox | undefined
  /** Claimed attempts waiting, and those in flight, shared out between organizations and endpoints. */
  const ready = new FairShare({
    slots: concurrency,
    lane: options.slowConcurrency,
    endpointCap: options.endpointConcurrency,
    holdMs: options.slotHoldMs,
  })
  const claimer = new Claimer({ ...options, workerId, ready })
  const sender = new HttpSender({
    ...options,
    secretBox: async () => (box ??= createSecretBox(await serviceSecret(db, 'webhook_secret_key'))),
  })
  const feeder = new ReplayFeeder({
    db,
    clock,
    log,
    listen: options.listen,
    ...(options.replayAhead ? { ahead: options.replayAhead } : {}),
  })
  const results = new ResultWriter({
    batchSize,
    maxUnwritten: concurrency + batchSize,
    waitMs: options.resultWaitMs,
    store: async (batch) => {
      const disabled = await completeAttempts(db, workerId, batch, DISABLE_AFTER_FAILURES)
      feeder.resultsStored()
      if (disabled.length === 0) return
      await settleDisabledEndpoints(db, disabled, batch[batch.length - 1]!.at)
      for (const id of disabled) {
        log.warn({ endpoint_id: id }, 'webhook endpoint disabled after too many consecutive failures')
        // Its attempts waiting for a slot are dropped before any slot frees: it receives nothing further.
        ready.drop(id)
      }
    },
    onError: (err, batch) =>
      log.error({ err, attempts: batch.length }, 'could not record webhook attempt results'),
  })
  return { ready, claimer, sender, feeder, results }
}

/**
 * The webhook worker: a loop that claims due attempts (claimer.ts) into a
 * local queue shared fairly between organizations and endpoints
 * (fair-share.ts), sends each (http-attempt.ts) and hands its result to a
 * writer that stores results in batches (result-writer.ts). Beside it, the
 * replay feeder (replay-feeder.ts) queues replays a few attempts at a time.
 */
export function createDispatcher(input: DispatcherOptions) {
  const options = withDefaults(input)
  const { clock, log, observer } = options
  const workerId = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`
  const { ready, claimer, sender, feeder, results } = workerParts(options, workerId)
  const attempt = createAttempt({
    clock,
    log,
    observer,
    retryDelaysMs: options.retryDelaysMs,
    ready,
    claimer,
    sender,
    results,
  })
  const inFlight = new Map<string, Flight>()
  let running = false
  let stopping = false
  let wake: (() => void) | undefined
  let loopDone: Promise<void> | undefined
  let unlisten: (() => Promise<void>) | undefined
  let sweeper: NodeJS.Timeout | undefined

  const poke = () => wake?.()

  /** Starts waiting attempts while slots (or places in the lane) are free; gives back those that waited too long. */
  function fill() {
    const expired: string[] = []
    while (running) {
      const ticket = ready.next()
      if (ticket === undefined) break
      if (ticket.startedAt - ticket.item.claimedAt > claimer.maxWaitMs) {
        expired.push(ticket.item.row.id)
        ready.done(ticket)
      } else start(ticket)
    }
    if (expired.length > 0) {
      claimer
        .giveBack(expired)
        .catch((err) => log.error({ err }, 'could not give back webhook attempts that waited too long'))
    }
  }

  function start(ticket: Ticket) {
    const flight = new Flight()
    inFlight.set(ticket.item.row.id, flight)
    flight.done = run(ticket, flight)
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
      if (claimer.due()) poke()
    }
  }

  /** Frees the slots of attempts unanswered after slotHoldMs, and starts what may go now. */
  function sweep(periodMs: number) {
    if (ready.demoteAged(performance.now(), periodMs) === 0) return
    fill()
    if (claimer.due()) poke()
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
      let delay = options.pollIntervalMs
      try {
        const free = claimer.room()
        if (claimer.due(free)) {
          const { full, exclude } = await claimer.claim(free)
          fill()
          if (full) continue
          delay = await claimer.sleepFor(delay, exclude)
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
      const periodMs = Math.max(5, Math.floor(options.slotHoldMs / 5))
      sweeper = setInterval(() => sweep(periodMs), periodMs).unref()
      loopDone = loop()
      await feeder.start()
    },

    /** Stops claiming, lets attempts in flight finish for up to graceMs, then gives the rest back. */
    async stop(graceMs = 5000) {
      if (!running || stopping) return
      stopping = true
      running = false
      poke()
      await unlisten?.().catch(() => {})
      await feeder.stop()
      await loopDone
      clearInterval(sweeper)
      // Attempts that never started go back at once (no new attempt starts now).
      await claimer.giveBack(ready.drop().map((r) => r.row.id))
      const settled = Promise.all([...inFlight.values()].map((f) => f.done)).then(() => true)
      const inTime = await Promise.race([settled, new Promise((r) => setTimeout(() => r(false), graceMs))])
      if (!inTime) {
        const unfinished = [...inFlight.keys()]
        for (const f of inFlight.values()) f.abort(new DOMException('webhook worker stopping', 'AbortError'))
        await Promise.all([...inFlight.values()].map((f) => f.done))
        await claimer.giveBack(unfinished)
      }
      await results.flushAll()
      await sender.close()
    },
  }
}

export type Dispatcher = ReturnType<typeof createDispatcher>
