import { context, propagation, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { registerInstrumentations } from '@opentelemetry/instrumentation'
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg'
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici'
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources'
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace'
import {
  ATTR_SERVICE_NAME,
  ATTR_SERVICE_VERSION,
  ATTR_URL_FULL,
  ATTR_URL_QUERY,
} from '@opentelemetry/semantic-conventions'
import { register as registerImportHooks } from 'import-in-the-middle/register-hooks.mjs'
import type { TracingConfig } from '../config.ts'
import { fastifyTracing } from './fastify.ts'

/** Traces as the service started them: the Fastify plugin for the app, and a flush for the end. */
export interface Telemetry {
  /** Registered on the app before any route (src/app.ts): a span per request. */
  fastify: ReturnType<typeof fastifyTracing>
  /** Sends the spans ended so far. */
  flush(): Promise<void>
  /** Sends the last spans and stops. */
  shutdown(): Promise<void>
}

/** OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG as the specification defines them. */
export function samplerOf(config: Pick<TracingConfig, 'sampler' | 'ratio'>): Sampler {
  const [parentBased, root] = config.sampler.startsWith('parentbased_')
    ? [true, config.sampler.slice('parentbased_'.length)]
    : [false, config.sampler]
  const sampler =
    root === 'always_off'
      ? new AlwaysOffSampler()
      : root === 'traceidratio'
        ? new TraceIdRatioBasedSampler(config.ratio)
        : new AlwaysOnSampler()
  return parentBased ? new ParentBasedSampler({ root: sampler }) : sampler
}

/**
 * Starts OpenTelemetry's SDK: W3C trace context, spans batched to the
 * collector over OTLP/HTTP, and the maintained instrumentations of the
 * PostgreSQL driver (both databases speak through it) and of undici (webhook
 * attempts). Called before the rest of the service is imported
 * (src/main.ts): `pg` is hooked as it loads, and only it.
 */
export async function startTracing(config: TracingConfig, version = 'dev'): Promise<Telemetry> {
  registerImportHooks({ include: ['pg'] })
  const resource = resourceFromAttributes({
    [ATTR_SERVICE_NAME]: config.serviceName,
    [ATTR_SERVICE_VERSION]: version,
  }).merge(detectResources({ detectors: [envDetector] }))
  const provider = new TracerProvider({
    resource,
    sampler: samplerOf(config),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: config.url }) })],
  })
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  propagation.setGlobalPropagator(new W3CTraceContextPropagator())
  trace.setGlobalTracerProvider(provider)
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      // Statements inside a request's or the service's own spans; never their values.
      new PgInstrumentation({
        requireParentSpan: true,
        ignoreConnectSpans: true,
        enhancedDatabaseReporting: false,
      }),
      // Webhook attempts (and S3) inside a span; the attempt's traceparent goes with the request.
      // A receiver's URL may carry a token in its query: the span keeps the URL without it.
      new UndiciInstrumentation({
        requireParentforSpans: true,
        requestHook(span, request) {
          span.setAttributes({
            [ATTR_URL_FULL]: `${request.origin}${request.path.split('?')[0]}`,
            [ATTR_URL_QUERY]: '',
          })
        },
      }),
    ],
  })
  return {
    fastify: fastifyTracing(provider),
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  }
}
