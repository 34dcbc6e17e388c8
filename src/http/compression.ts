import { constants } from 'node:zlib'
import compress from '@fastify/compress'
import type { FastifyInstance, RouteOptions } from 'fastify'

/**
 * The answers compressed on the fly when the client asks (Accept-Encoding):
 * what GET and HEAD answer under /v1 and /admin/v1 (JSON: polling pages, the
 * OpenAPI document), authenticated by a key or token a browser does not send
 * on its own, and the HTML pages of /docs. Never the order path: a POST or any
 * other route gets no hook at all. Static files come compressed from the build
 * (@fastify/static's preCompressed); the dashboard's answers, authenticated by
 * cookie, stay as they are (docs/decisions/2026-12-02-compressed-assets.md).
 */
export function compressedRoute(route: Pick<RouteOptions, 'method' | 'url'>): boolean {
  const methods = [route.method].flat()
  if (!methods.every((m) => m === 'GET' || m === 'HEAD')) return false
  const url = route.url
  if (url === '/docs' || url.startsWith('/docs/guides')) return true
  return url.startsWith('/v1/') || url.startsWith('/admin/v1/')
}

/** JSON and HTML; past these the plugin asks mime-db (an SVG download is compressible, a PNG or PDF not). */
const TYPES = /^(?:application\/json|text\/html)(?:;|$)/

export const COMPRESSION = {
  brotliQuality: 4,
  gzipLevel: 4,
  /** Under this many bytes an answer goes as it is. */
  threshold: 1024,
}

const OPTIONS = {
  encodings: ['br' as const, 'gzip' as const],
  threshold: COMPRESSION.threshold,
  customTypes: TYPES,
  brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: COMPRESSION.brotliQuality } },
  zlibOptions: { level: COMPRESSION.gzipLevel },
  // A polling page (~100 kB) compressed in one call, with its Content-Length,
  // rather than through a stream pipeline.
  syncThreshold: 4 * 1024 * 1024,
}

/** Registered before any route: it decides per route when the route is added. */
export async function registerCompression(app: FastifyInstance) {
  app.addHook('onRoute', (route) => {
    // A route's options replace the plugin's (defaults included), so each route gets them all.
    route.compress = compressedRoute(route) ? OPTIONS : false
    // Request bodies are never decompressed: a compressed body is refused as
    // before, and the body limits count the bytes that arrive.
    route.decompress = false
  })
  await app.register(compress, {
    ...OPTIONS,
    global: false,
    globalDecompression: false,
  })
}
