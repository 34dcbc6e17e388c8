import { join } from 'node:path'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { DOCS_COMPRESSED, freshCopies } from './compressed.ts'
import type { DocsService } from './docs.service.ts'
import { GUIDES_PATH, IMAGES_PATH, PROJECT_ROOT } from './guides.ts'
import { ASSETS_PATH, DOCS_PATH, GUIDE_CSP, REFERENCE_CSP, RENDERER_PATH } from './pages.ts'

const open = { config: { auth: 'none' as const }, schema: { hide: true } }

function html(reply: FastifyReply, csp: string, body: string) {
  return reply
    .type('text/html; charset=utf-8')
    .headers({
      'content-security-policy': csp,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    })
    .send(body)
}

/**
 * GET /docs: the interactive API reference of /v1/openapi.json, and the guides
 * of docs/ as pages under /docs/guides. Public, like the document itself.
 */
export function docsRoutes(deps: { docs: DocsService }) {
  const { docs } = deps
  return async function routes(app: FastifyInstance) {
    app.get(DOCS_PATH, open, async (_request, reply) => html(reply, REFERENCE_CSP, docs.reference()))
    app.get(`${GUIDES_PATH}/decisions`, open, async (_request, reply) =>
      html(reply, GUIDE_CSP, docs.decisions()),
    )
    app.get<{ Params: { name: string } }>(`${GUIDES_PATH}/:name`, open, async (request, reply) =>
      html(reply, GUIDE_CSP, docs.guide(request.params.name)),
    )
    app.get<{ Params: { name: string } }>(`${GUIDES_PATH}/decisions/:name`, open, async (request, reply) =>
      html(reply, GUIDE_CSP, docs.guide(`decisions/${request.params.name}`)),
    )
    // Files: the renderer (its URL names its version: kept for a year), our
    // stylesheet and settings (revalidated), the images of docs/. Each folder
    // has its own scope: the compressed copies are looked up first, the file
    // itself otherwise; sendFile keeps every path inside its folders.
    const [renderer, assets] = DOCS_COMPRESSED.map((entry) => {
      const copies = freshCopies(entry)
      if (!copies) {
        app.log.warn(
          { folder: entry.source },
          'served uncompressed: its compressed copies are missing or stale (npm run build:assets makes them)',
        )
      }
      return copies ? [copies, entry.source] : [entry.source]
    })
    const folders = [
      { prefix: RENDERER_PATH, roots: renderer!, cacheControl: 'public, max-age=31536000, immutable' },
      { prefix: ASSETS_PATH, roots: assets! },
      { prefix: IMAGES_PATH, roots: [join(PROJECT_ROOT, 'docs/images')] },
    ]
    for (const { prefix, roots, cacheControl } of folders) {
      await app.register(async (scope) => {
        await scope.register(fastifyStatic, {
          root: roots,
          serve: false,
          index: false,
          preCompressed: true,
          cacheControl: cacheControl === undefined,
          setHeaders: (reply) => {
            reply.header('x-content-type-options', 'nosniff')
            if (cacheControl) reply.header('cache-control', cacheControl)
          },
        })
        scope.get<{ Params: { '*': string } }>(`${prefix}/*`, open, async (request, reply) => {
          const path = request.params['*']
          // send refuses a ../ segment as a bad request; to a reader it is a page that is not there.
          // The compressed copies are representations of their file, not files of their own.
          return path.split('/').includes('..') || /\.(?:br|gz)$/.test(path)
            ? reply.callNotFound()
            : reply.sendFile(path)
        })
      })
    }
  }
}
