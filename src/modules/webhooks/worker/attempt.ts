import { ROOT_CONTEXT, type Span, trace } from '@opentelemetry/api'
import { ATTR_HTTP_RESPONSE_STATUS_CODE } from '@opentelemetry/semantic-conventions'
import type { FastifyBaseLogger } from 'fastify'
import type { Clock } from '../../../lib/clock.ts'
import {
  ATTR,
  activeTraceId,
  linksTo,
  SpanKind,
  SpanStatusCode,
  spanContextOf,
  tracer,
} from '../../../telemetry/tracing.ts'
import type { ClaimedDelivery } from '../outbox/claim.repo.ts'
import type { AttemptResult } from '../outbox/complete.repo.ts'
import type { Claimer } from './claimer.ts'
import type { DispatcherOptions } from './dispatcher-options.ts'
import type { FairShare } from './fair-share.ts'
import type { Flight, HttpSender, Sent } from './http-attempt.ts'
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
    const sent = await inAttemptSpan(row, async (span) => {
      const sent = await sender.send(row, flight)
      if (sent) endAttemptSpan(span, sent)
      return sent && { sent, traceId: activeTraceId() }
    })
    // Cut short by shutdown: the attempt did not happen; the claim is given back.
    if (sent === undefined) return
    const result = { ...sentResult(row, sent.sent, parts.retryDelaysMs), traceId: sent.traceId }
    const stored = results.report(result)
    observer?.attempted(sent.sent.outcome, sent.sent.durationMs)
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

/**
 * The attempt's span: in the trace of the request that asked for it (a
 * redelivery's or replay's), else of the one that wrote the event, and
 * linked to both; the HTTP request to the receiver (undici's span, whose
 * traceparent the receiver gets) runs inside it.
 */
function inAttemptSpan<T>(row: ClaimedDelivery, work: (span: Span) => Promise<T>): Promise<T> {
  const parent = spanContextOf(row.delivery_trace_context ?? row.event_trace_context)
  return tracer.startActiveSpan(
    'webhook attempt',
    {
      kind: SpanKind.INTERNAL,
      links: linksTo(row.event_trace_context, row.delivery_trace_context),
      attributes: {
        [ATTR.organization]: row.organization_id,
        [ATTR.endpoint]: row.endpoint_id,
        [ATTR.delivery]: row.id,
        [ATTR.event]: row.event_id,
        [ATTR.eventType]: row.event_type,
        [ATTR.attempt]: row.attempts,
      },
    },
    parent ? trace.setSpanContext(ROOT_CONTEXT, parent) : ROOT_CONTEXT,
    async (span) => {
      try {
        return await work(span)
      } finally {
        span.end()
      }
    },
  )
}

function endAttemptSpan(span: Span, sent: Sent) {
  span.setAttributes({
    [ATTR.outcome]: sent.outcome,
    [ATTR.durationMs]: sent.durationMs,
    ...(sent.status === null ? {} : { [ATTR_HTTP_RESPONSE_STATUS_CODE]: sent.status }),
  })
  if (sent.outcome !== 'succeeded') span.setStatus({ code: SpanStatusCode.ERROR, message: sent.outcome })
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
