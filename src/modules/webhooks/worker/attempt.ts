import type { FastifyBaseLogger } from 'fastify'
import type { Clock } from '../../../lib/clock.ts'
import type { ClaimedDelivery } from '../outbox/claim.repo.ts'
import type { AttemptResult } from '../outbox/complete.repo.ts'
import type { Claimer } from './claimer.ts'
import type { DispatcherOptions } from './dispatcher-options.ts'
import type { FairShare } from './fair-share.ts'
import type { Flight, HttpSender } from './http-attempt.ts'
import { disabledResult, type ResultWriter, sentResult } from './result-writer.ts'

/** What one attempt needs: the dispatcher's parts (dispatcher.ts) and options. */
export interface AttemptParts {
  clock: Clock
  log: FastifyBaseLogger
  observer: DispatcherOptions['observer']
  retryDelaysMs: readonly number[]
  ready: FairShare
  claimer: Claimer
  sender: HttpSender
  results: ResultWriter
}

/**
 * One claimed attempt, from sending it to reporting its result (to an
 * inactive endpoint: not sent, failed at once); a failure is logged and
 * holds its endpoint back.
 */
export function createAttempt(parts: AttemptParts) {
  const { clock, log, observer, ready, claimer, sender, results } = parts

  /** One attempt; resolves when its slot may be used again (a failure's once its result is stored). */
  async function attempt(row: ClaimedDelivery, flight: Flight): Promise<void> {
    if (!row.endpoint_active) return results.report(disabledResult(row, clock.now()))
    const sent = await sender.send(row, flight)
    // Cut short by shutdown: the attempt did not happen; the claim is given back.
    if (sent === undefined) return
    const result = sentResult(row, sent, parts.retryDelaysMs)
    const stored = results.report(result)
    observer?.attempted(sent.outcome, sent.durationMs)
    if (result.errorCode !== null) {
      logFailure(log, row, result)
      holdBack(row.endpoint_id)
    }
    return stored
  }

  /**
   * A failing endpoint's attempts claimed here and not started go back
   * uncounted: from now on it gets one probe at a time (claim.repo.ts).
   */
  function holdBack(endpointId: string) {
    const waiting = ready.drop(endpointId)
    if (waiting.length === 0) return
    claimer
      .giveBack(waiting.map((w) => w.row.id))
      .catch((err) => log.error({ err }, 'could not give back the attempts of a failing webhook endpoint'))
  }

  return attempt
}

/** A failed attempt, for the operator: whose, which, and why; never the secret, signature or body. */
function logFailure(log: FastifyBaseLogger, row: ClaimedDelivery, result: AttemptResult) {
  log.warn(
    {
      endpoint_id: row.endpoint_id,
      event_id: row.event_id,
      delivery_id: row.id,
      attempt: row.attempts,
      error_code: result.errorCode,
      error_message: result.errorMessage,
      response_status: result.responseStatus,
      next_attempt_at: result.nextAttemptAt?.toISOString() ?? null,
    },
    'webhook attempt failed',
  )
}
