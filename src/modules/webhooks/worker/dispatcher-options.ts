import type { FastifyBaseLogger } from 'fastify'
import type { Database, Listen } from '../../../db/database.ts'
import type { Clock } from '../../../lib/clock.ts'
import type { AttemptOutcome } from './http-attempt.ts'
import { parseCidrs } from './ssrf.ts'

/** Most rows one claim takes, and most attempt results one statement writes. */
const MAX_BATCH = 128

export interface DispatcherOptions {
  db: Database
  clock: Clock
  log: FastifyBaseLogger
  listen: Listen
  retryDelaysMs: readonly number[]
  timeoutMs: number
  /** Slots: attempts in flight at once, each for at most slotHoldMs while it waits for its answer. */
  concurrency?: number
  /** Attempts of slow endpoints (unanswered after slotHoldMs) started while fewer are slow (default 512). */
  slowConcurrency?: number
  /** How long an attempt may hold a slot waiting for its answer (default 250 ms). */
  slotHoldMs?: number
  /**
   * Attempts in flight at once to one endpoint (default 16, at most `concurrency`; see
   * docs/decisions/2026-11-25-webhook-endpoint-concurrency.md).
   */
  endpointConcurrency?: number
  /** Longest sleep between looks at the table when nothing wakes the worker. */
  pollIntervalMs?: number
  /**
   * Private ranges webhooks may reach (WEBHOOK_ALLOW_PRIVATE_CIDRS; default none).
   * Each attempt checks the endpoint's pinned addresses against them.
   */
  allowPrivateCidrs?: readonly string[]
  /** Extra CA certificates for webhook targets (tests); NODE_EXTRA_CA_CERTS works too. */
  ca?: string | Buffer
  /**
   * How long a claim is held before other workers may take the attempt again
   * (default timeoutMs + 30 s). Must outlast an attempt, or two workers could
   * send the same attempt at once.
   */
  leaseMs?: number
  /** Longest a success's result waits for a batch of results to fill (default 10 ms). */
  resultWaitMs?: number
  /** Replayed attempts one endpoint may have due at once (default REPLAY_AHEAD, replay-feeder.ts). */
  replayAhead?: number
  /** Told of every attempt that was sent and finished (metrics). */
  observer?: { attempted(outcome: AttemptOutcome, durationMs: number): void }
}

/** The options with every default filled in. */
export function withDefaults(options: DispatcherOptions) {
  const concurrency = options.concurrency ?? 128
  return {
    ...options,
    concurrency,
    /** Rows one claim takes and results one statement writes, at most. */
    batchSize: Math.max(1, Math.min(MAX_BATCH, concurrency)),
    slowConcurrency: options.slowConcurrency ?? 512,
    slotHoldMs: options.slotHoldMs ?? 250,
    endpointConcurrency: Math.min(concurrency, options.endpointConcurrency ?? 16),
    pollIntervalMs: options.pollIntervalMs ?? 1000,
    // An attempt of a worker that died is taken again once its lease runs out.
    leaseMs: options.leaseMs ?? options.timeoutMs + 30_000,
    resultWaitMs: options.resultWaitMs ?? 10,
    allowed: parseCidrs(options.allowPrivateCidrs ?? []),
  }
}
