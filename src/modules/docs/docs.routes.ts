import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance, FastifyReply } from 'fastify'
import type { DocsService } from './docs.service.ts'
import { GUIDES_PATH, IMAGES_PATH, PROJECT_ROOT } from './guides.ts'
import { ASSETS_PATH, DOCS_PATH, GUIDE_CSP, REFERENCE_CSP, RENDERER_PATH } from './pages.ts'

/** The renderer's self-contained browser build, served from node_modules. */
const RENDERER_DIR = join(dirname(fileURLToPath(import.meta.resolve('@scalar/api-reference'))), 'browser')
const OWN_ASSETS_DIR = fileURLToPath(new URL('./assets/', import.meta.url))

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
    // Files: the renderer, our stylesheet and its settings, the images of docs/.
    // sendFile keeps every path inside its folder.
    await app.register(fastifyStatic, {
      root: OWN_ASSETS_DIR,
      serve: false,
      index: false,
      setHeaders: (reply) => reply.header('x-content-type-options', 'nosniff'),
    })
    for (const [prefix, root] of [
      [RENDERER_PATH, RENDERER_DIR],
      [ASSETS_PATH, OWN_ASSETS_DIR],
      [IMAGES_PATH, join(PROJECT_ROOT, 'docs/images')],
    ] as const) {
      app.get<{ Params: { '*': string } }>(`${prefix}/*`, open, async (request, reply) => {
        const path = request.params['*']
        // send refuses a ../ segment as a bad request; to a reader it is a page that is not there.
        return path.split('/').includes('..') ? reply.callNotFound() : reply.sendFile(path, root)
      })
    }
  }
}
