import {
  type Attributes,
  type Link,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  trace,
} from '@opentelemetry/api'

/**
 * The service's own spans and the trace context it stores (docs/operations.md,
 * Traces). Written against OpenTelemetry's API only: with traces off (no SDK
 * started, src/telemetry/start.ts) every span here is a no-op and no context
 * is active, so nothing is stored.
 */
export const tracer = trace.getTracer('order-intake-service')

/** The attribute names of the service's own (never a key, a secret or a body). */
export const ATTR = {
  organization: 'order_intake.organization.id',
  environment: 'order_intake.environment',
  endpoint: 'order_intake.webhook.endpoint.id',
  delivery: 'order_intake.webhook.delivery.id',
  event: 'order_intake.webhook.event.id',
  eventType: 'order_intake.webhook.event.type',
  attempt: 'order_intake.webhook.attempt',
  outcome: 'order_intake.webhook.outcome',
  durationMs: 'order_intake.webhook.duration_ms',
} as const

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/

/** The active span's context as a W3C traceparent, to store with what it causes; null without one. */
export function activeTraceparent(): string | null {
  const context = trace.getActiveSpan()?.spanContext()
  if (!context || !trace.isSpanContextValid(context)) return null
  const flags = (context.traceFlags & TraceFlags.SAMPLED).toString(16).padStart(2, '0')
  return `00-${context.traceId}-${context.spanId}-${flags}`
}

/** The active span's trace id when its trace is kept (sampled), for the pages that show it; else null. */
export function activeTraceId(): string | null {
  const context = trace.getActiveSpan()?.spanContext()
  return context && trace.isSpanContextValid(context) && context.traceFlags & TraceFlags.SAMPLED
    ? context.traceId
    : null
}

/** A stored traceparent as a span context; undefined for null or anything malformed. */
export function spanContextOf(traceparent: string | null | undefined): SpanContext | undefined {
  const match = traceparent ? TRACEPARENT.exec(traceparent) : null
  if (!match) return undefined
  const context = {
    traceId: match[1]!,
    spanId: match[2]!,
    traceFlags: Number.parseInt(match[3]!, 16),
    isRemote: true,
  }
  return trace.isSpanContextValid(context) ? context : undefined
}

/** The trace id of a stored traceparent, or null. */
export const traceIdOf = (traceparent: string | null | undefined): string | null =>
  spanContextOf(traceparent)?.traceId ?? null

/** Links to the stored contexts there are (each once). */
export function linksTo(...traceparents: (string | null | undefined)[]): Link[] {
  const seen = new Set<string>()
  const links: Link[] = []
  for (const tp of traceparents) {
    const context = spanContextOf(tp)
    if (context && !seen.has(context.spanId)) {
      seen.add(context.spanId)
      links.push({ context })
    }
  }
  return links
}

/** Attributes on the request's span (the active one), e.g. the organization once the caller is known. */
export function annotateActiveSpan(attributes: Attributes): void {
  trace.getActiveSpan()?.setAttributes(attributes)
}

/**
 * Runs `work` in a new active span of the service (a background fold, sweep
 * or prune): an error marks the span failed, with the error's kind (its
 * message may quote data) and is thrown on.
 */
export function inSpan<T>(
  name: string,
  options: { attributes?: Attributes; links?: Link[]; kind?: SpanKind },
  work: (span: Span) => Promise<T>,
): Promise<T> {
  return tracer.startActiveSpan(name, { kind: SpanKind.INTERNAL, ...options }, async (span) => {
    try {
      return await work(span)
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: errorKind(err) })
      throw err
    } finally {
      span.end()
    }
  })
}

/** A span of work already done (from `startTime` until now), recorded after the fact with what it did. */
export function recordedSpan(name: string, startTime: Date, attributes: Attributes): void {
  tracer.startSpan(name, { kind: SpanKind.INTERNAL, startTime, attributes }, ROOT_CONTEXT).end()
}

/** An error's code or class name, never its message. */
export function errorKind(err: unknown): string {
  const { code, name } = (err ?? {}) as { code?: unknown; name?: unknown }
  return typeof code === 'string' ? code : typeof name === 'string' ? name : 'error'
}

export { SpanKind, SpanStatusCode }
