import type { ClaimedDelivery } from '../outbox/claim.repo.ts'
import type { AttemptResult } from '../outbox/complete.repo.ts'
import { ENDPOINT_DISABLED_MESSAGE } from '../outbox/outbox.repo.ts'
import type { Sent } from './http-attempt.ts'

/*
 * Attempt results on their way to the database, many to a statement. A result is
 *   queued   in the open batch, until the batch is due;
 *   writing  its batch is being stored (results reported meanwhile go into the next batch);
 *   stored   or given up on after a second try (the claims then stay with the
 *            worker until their lease ends, and the attempts run again).
 * A batch is due once it holds batchSize results, or once it is urgent: it
 * holds a failure, or the writer is behind, or waitMs passed while it waited.
 * A failure's attempt keeps its slot until its result is stored, so the next
 * claim sees its effect on the endpoint's failure streak (a success cannot
 * disable anything: its slot frees at once). When more than maxUnwritten
 * results are queued or writing, every attempt's slot waits for its result.
 * See docs/decisions/2026-11-25-webhook-result-batches.md.
 */

export interface ResultWriterOptions {
  /** The most results one statement writes. */
  batchSize: number
  /** Unwritten results beyond which a success's slot waits for its result too. */
  maxUnwritten: number
  /** Longest a success's result waits for its batch to fill. */
  waitMs: number
  /** Writes one batch in one statement. */
  store: (results: AttemptResult[]) => Promise<void>
  /** A batch could not be written, twice. */
  onError: (err: unknown, results: AttemptResult[]) => void
}

interface Batch {
  results: AttemptResult[]
  /** Settles once the batch is stored (or given up on). */
  written: PromiseWithResolvers<void>
}

const newBatch = (): Batch => ({ results: [], written: Promise.withResolvers<void>() })

export class ResultWriter {
  readonly #options: ResultWriterOptions
  #queued = newBatch()
  #flushing: Promise<void> | undefined
  /** Results queued or writing. */
  #unwritten = 0
  /** The queued results are to be written without waiting for a whole batch. */
  #urgent = false
  #timer: NodeJS.Timeout | undefined

  constructor(options: ResultWriterOptions) {
    this.#options = options
  }

  /**
   * Queues a result; returns a promise to wait for before the attempt's slot
   * is used again (settled once the result is stored), or undefined when the
   * slot may be used at once.
   */
  report(result: AttemptResult): Promise<void> | undefined {
    const batch = this.#queued
    batch.results.push(result)
    this.#unwritten++
    const wait =
      (result.counts && result.status !== 'succeeded') || this.#unwritten > this.#options.maxUnwritten
    if (wait) this.#urgent = true
    this.#schedule()
    return wait ? batch.written.promise : undefined
  }

  /** Writes every result reported so far (shutdown). */
  async flushAll(): Promise<void> {
    while (this.#flushing || this.#queued.results.length > 0) await this.#flush(true)
  }

  #batchDue(): boolean {
    return this.#urgent || this.#queued.results.length >= this.#options.batchSize
  }

  /** Writes queued results while a batch is due (with `all`, every one of them). */
  #flush(all = false): Promise<void> {
    if (all) this.#urgent = true
    clearTimeout(this.#timer)
    this.#timer = undefined
    this.#flushing ??= (async () => {
      while (this.#queued.results.length > 0 && this.#batchDue()) {
        const batch = this.#queued
        this.#queued = newBatch()
        this.#urgent = false
        await this.#write(batch.results)
        this.#unwritten -= batch.results.length
        batch.written.resolve()
      }
    })().finally(() => {
      this.#flushing = undefined
      // Results queued after the loop's last look are written now or soon.
      this.#schedule()
    })
    return this.#flushing
  }

  /** Writes the queued results at once if a batch is due, else within waitMs. */
  #schedule() {
    if (this.#queued.results.length === 0) return
    if (this.#batchDue()) void this.#flush()
    else if (!this.#flushing) this.#timer ??= setTimeout(() => void this.#flush(true), this.#options.waitMs)
  }

  async #write(results: AttemptResult[]): Promise<void> {
    // A second try covers a transient failure (a deadlock victim among workers
    // recording for the same endpoints).
    for (let tries = 1; tries <= 2; tries++) {
      try {
        return await this.#options.store(results)
      } catch (err) {
        if (tries === 2) this.#options.onError(err, results)
      }
    }
  }
}

/** When a failed attempt runs again: its delay plus up to 10 % jitter; null after the last delay. */
export function retryAt(delaysMs: readonly number[], attempts: number, now: Date): Date | null {
  const delay = delaysMs[attempts - 1]
  if (delay === undefined) return null
  // The jitter keeps a burst of failures from retrying in lockstep.
  return new Date(now.getTime() + delay + Math.floor(Math.random() * delay * 0.1))
}

/** The result of an attempt that was sent (`row.attempts` counts it). */
export function sentResult(
  row: ClaimedDelivery,
  sent: Sent,
  retryDelaysMs: readonly number[],
): AttemptResult {
  const ok = sent.outcome === 'succeeded'
  const next = ok ? null : retryAt(retryDelaysMs, row.attempts, sent.at)
  // The endpoint's next probe: this delivery's retry, or (none left) the next
  // waiting delivery after the first delay.
  const probeAt = ok ? null : (next ?? new Date(sent.at.getTime() + (retryDelaysMs[0] ?? 0)))
  return {
    deliveryId: row.id,
    endpointId: row.endpoint_id,
    status: ok ? 'succeeded' : next ? 'pending' : 'failed',
    errorCode: ok ? null : sent.outcome,
    errorMessage: sent.message,
    responseStatus: sent.status,
    snippet: sent.snippet,
    durationMs: sent.durationMs,
    nextAttemptAt: next,
    startedAt: sent.startedAt,
    at: sent.at,
    counts: true,
    probeAt,
    signedAt: sent.signedAt,
    traceId: null,
  }
}

/** A claimed attempt whose endpoint was disabled meanwhile: not sent, its delivery fails. */
export function disabledResult(row: ClaimedDelivery, at: Date): AttemptResult {
  return {
    deliveryId: row.id,
    endpointId: row.endpoint_id,
    status: 'failed',
    errorCode: 'endpoint_disabled',
    errorMessage: ENDPOINT_DISABLED_MESSAGE,
    responseStatus: null,
    snippet: null,
    durationMs: null,
    nextAttemptAt: null,
    startedAt: at,
    at,
    counts: false,
    probeAt: null,
    signedAt: null,
    traceId: null,
  }
}
