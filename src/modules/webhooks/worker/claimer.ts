import type { Database } from '../../../db/database.ts'
import type { Clock } from '../../../lib/clock.ts'
import { claimDue } from '../outbox/claim.repo.ts'
import { nextDueAt } from '../outbox/next-due.repo.ts'
import { releaseClaims } from '../outbox/release.repo.ts'
import type { FairShare } from './fair-share.ts'

/** How long claimed attempts may wait in the worker before their endpoint is left out of claims. */
export const CLAIM_WAIT_MS = 50

export interface ClaimerOptions {
  db: Database
  clock: Clock
  workerId: string
  /** The worker's slots (see fair-share.ts). */
  concurrency: number
  /** Rows one claim takes at most: the worker holds up to one such batch ahead of its slots. */
  batchSize: number
  leaseMs: number
  /** The attempt's deadline. */
  timeoutMs: number
  /** Claimed attempts waiting in the worker, and those in flight. */
  ready: FairShare
}

/**
 * When the worker claims and how much: a busy worker claims whole batches and
 * holds one ahead of its slots, so a slot that frees starts the next attempt
 * without waiting for a claim's round trip; slots held by slow endpoints do
 * not hold the rest back, since after CLAIM_WAIT_MS it claims whatever fits.
 * See docs/decisions/2026-11-25-webhook-claims-one-batch-ahead.md.
 */
export class Claimer {
  /**
   * How long a claimed attempt may wait for a slot: it must still be sent
   * within its lease, or another worker could take it meanwhile. Attempts
   * that waited longer (all slots held by slow endpoints, or their own
   * endpoint at its cap and slow) are given back.
   */
  readonly maxWaitMs: number
  readonly #options: ClaimerOptions
  #lastClaimAt = 0

  constructor(options: ClaimerOptions) {
    this.#options = options
    const spare = options.leaseMs - options.timeoutMs
    this.maxWaitMs = spare - Math.min(5000, spare / 2)
  }

  /** Attempts the worker may still take on: free slots plus one batch ahead, less those waiting for a slot. */
  room(): number {
    const { ready, concurrency, batchSize } = this.#options
    return concurrency + batchSize - ready.fast - (ready.size - ready.laneWaiting)
  }

  /** Whether to claim `free` attempts now: a whole batch, or what fits when nothing is on a slot or a while has passed. */
  due(free = this.room()): boolean {
    return (
      free >= this.#options.batchSize ||
      (free > 0 && (this.#options.ready.fast === 0 || performance.now() - this.#lastClaimAt >= CLAIM_WAIT_MS))
    )
  }

  /**
   * Claims up to `free` due attempts into the worker's queue. An endpoint
   * whose attempts have waited here longer than CLAIM_WAIT_MS (a slow one at
   * its cap with a backlog) is left out, and a slow endpoint gets no more than
   * it can start now. `full`: as many were due as fitted.
   */
  async claim(free: number): Promise<{ full: boolean; exclude: readonly string[] }> {
    const { db, clock, ready } = this.#options
    const claimedAt = performance.now()
    this.#lastClaimAt = claimedAt
    const { exclude, limits } = ready.claimPlan(claimedAt - CLAIM_WAIT_MS)
    const rows = await claimDue(db, {
      limit: free,
      now: clock.now(),
      leaseMs: this.#options.leaseMs,
      workerId: this.#options.workerId,
      exclude,
      limits,
    })
    for (const row of rows) ready.push({ row, claimedAt })
    return { full: rows.length === free, exclude }
  }

  /** How long until the next attempt not in `exclude` falls due, at most `ms`. */
  async sleepFor(ms: number, exclude: readonly string[]): Promise<number> {
    const { db, clock } = this.#options
    const due = await nextDueAt(db, clock.now(), exclude)
    return due ? Math.min(ms, due.getTime() - clock.now().getTime()) : ms
  }

  /** Gives claims back unsent and uncounted. */
  giveBack(ids: readonly string[]): Promise<void> {
    return releaseClaims(this.#options.db, ids, this.#options.workerId)
  }
}
