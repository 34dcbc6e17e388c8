import FastifyOtel from '@fastify/otel'
import type { TracerProvider } from '@opentelemetry/sdk-trace'
import { ATTR_URL_PATH } from '@opentelemetry/semantic-conventions'

/** Probes and scrapes, every few seconds from every load balancer and Prometheus: no trace each. */
const UNTRACED = new Set(['/healthz', '/readyz', '/metrics'])

/**
 * @fastify/otel, the Fastify team's instrumentation: a server span per
 * request, continuing the caller's traceparent, named by method and route,
 * with the route, method, path (never the query, which may hold a search)
 * and status. The service adds the organization and environment once the
 * caller is known (src/http/auth.ts); statements run inside it. One span per
 * request: no spans per hook or for the handler.
 */
export function fastifyTracing(provider: TracerProvider) {
  const instrumentation = new FastifyOtel.FastifyOtelInstrumentation({
    instrumentHooks: false,
    instrumentHandler: false,
    recordExceptions: false,
    ignorePaths: ({ url }) => UNTRACED.has(url),
    requestHook(span, request) {
      span.updateName(`${request.method} ${request.routeOptions.url ?? 'unknown route'}`)
      span.setAttribute(ATTR_URL_PATH, request.url.split('?')[0]!)
    },
  })
  instrumentation.setTracerProvider(provider)
  return instrumentation.plugin()
}
