import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance, FastifyReply } from 'fastify'

/** The web app's build (web/dist), made by `npm ci` through the web workspace's prepare script. */
export const WEB_DIST = new URL('../../web/dist/', import.meta.url).pathname
export const DASHBOARD_PATH = '/dashboard'
const NONCE_PLACEHOLDER = /__CSP_NONCE__/g

/**
 * The dashboard's pages: scripts, styles, images and requests from this
 * origin only, nothing inline but the style elements Mantine writes, which
 * carry this response's nonce (the page hands it to Mantine in a meta tag).
 */
export function dashboardCsp(nonce: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ')
}

const open = { config: { auth: 'none' as const }, schema: { hide: true } }

/**
 * GET /dashboard and every client route under it: the app's index.html with
 * a fresh nonce; GET /dashboard/assets/*: the hashed bundle files, cached for
 * a year (a new build has new names), Brotli or gzip when the client takes it.
 */
export function dashboardWebRoutes(options: { dist?: string } = {}) {
  const dist = options.dist ?? WEB_DIST
  return async function routes(app: FastifyInstance) {
    const indexPath = join(dist, 'index.html')
    // Read once: a build replaces the service's files only with a restart.
    const index = existsSync(indexPath) ? readFileSync(indexPath, 'utf8') : undefined

    function page(reply: FastifyReply) {
      if (!index) {
        return reply
          .code(503)
          .type('text/plain; charset=utf-8')
          .header('cache-control', 'no-store')
          .send(
            'The dashboard is not built: run `npm ci` (or `npm run build -w web`) and restart the service.\n',
          )
      }
      const nonce = randomBytes(16).toString('base64')
      return reply
        .type('text/html; charset=utf-8')
        .headers({
          'content-security-policy': dashboardCsp(nonce),
          'cache-control': 'no-store',
          'x-content-type-options': 'nosniff',
          'referrer-policy': 'same-origin',
          'x-frame-options': 'DENY',
        })
        .send(index.replace(NONCE_PLACEHOLDER, nonce))
    }

    await app.register(fastifyStatic, {
      root: join(dist, 'assets'),
      serve: false,
      index: false,
      // NAME.br and NAME.gz, made by the web build beside each file (scripts/compress-assets.ts).
      preCompressed: true,
      setHeaders: (res) => {
        res.header('x-content-type-options', 'nosniff')
        res.header('cache-control', 'public, max-age=31536000, immutable')
      },
    })
    app.get(DASHBOARD_PATH, open, async (_request, reply) => page(reply))
    app.get<{ Params: { '*': string } }>(`${DASHBOARD_PATH}/assets/*`, open, async (request, reply) => {
      const path = request.params['*']
      // The compressed copies are representations of their file, not files of their own.
      return path.split('/').includes('..') || /\.(?:br|gz)$/.test(path)
        ? reply.callNotFound()
        : reply.sendFile(path, { cacheControl: false })
    })
    // Client routes (/dashboard/members ...) get the app, which routes itself;
    // the API's unknown paths stay 404 in the error shape.
    app.get<{ Params: { '*': string } }>(`${DASHBOARD_PATH}/*`, open, async (request, reply) => {
      const path = request.params['*']
      if (path === 'api' || path.startsWith('api/') || path.startsWith('assets/')) return reply.callNotFound()
      return page(reply)
    })
  }
}
