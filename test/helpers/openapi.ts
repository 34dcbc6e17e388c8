import diagnostics from 'node:diagnostics_channel'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import type { FastifyInstance, RouteOptions } from 'fastify'

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020

// biome-ignore lint/suspicious/noExplicitAny: a parsed JSON document walked by the tests
export type Doc = any

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options']

/** Every operation of the document's paths, with its method and path. */
export function operations(doc: Doc): { method: string; path: string; op: Doc }[] {
  return Object.entries<Doc>(doc.paths).flatMap(([path, item]) =>
    HTTP_METHODS.filter((m) => item[m]).map((method) => ({ method, path, op: item[method] })),
  )
}

/**
 * Checks values against the document's own schemas with the JSON Schema
 * dialect OpenAPI 3.1 uses (2020-12); `#/components/...` references resolve
 * inside the document.
 */
export function schemaChecker(doc: Doc) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false })
  addFormats(ajv)
  ajv.addFormat('binary', true)
  ajv.addSchema(doc, 'openapi.json')
  return (schema: Doc, value: unknown): string | undefined => {
    const validate = ajv.compile(resolveLocal(schema))
    return validate(value) ? undefined : ajv.errorsText(validate.errors)
  }
}

/** `#/components/...` as written inside the document, from a schema checked outside it. */
function resolveLocal(schema: Doc): Doc {
  return JSON.parse(JSON.stringify(schema).replaceAll('"$ref":"#/', '"$ref":"openapi.json#/'))
}

/** `/v1/orders/:id` -> `/v1/orders/{id}`, as the document writes paths. */
export const openApiPath = (url: string) => url.replace(/:([A-Za-z_]+)/g, '{$1}')

/**
 * The routes of every Fastify instance created while `build` runs, read with
 * an onRoute hook attached through the `fastify.initialization` channel, before
 * any route is registered. HEAD mirrors of GET routes are left out.
 */
export async function collectRoutes<T>(
  build: () => Promise<T>,
): Promise<{ built: T; routes: RouteOptions[] }> {
  const routes: RouteOptions[] = []
  const onInit = (message: unknown) => {
    const { fastify } = message as { fastify: FastifyInstance }
    fastify.addHook('onRoute', (route) => {
      if (route.method !== 'HEAD') routes.push(route as RouteOptions)
    })
  }
  diagnostics.subscribe('fastify.initialization', onInit)
  try {
    return { built: await build(), routes }
  } finally {
    diagnostics.unsubscribe('fastify.initialization', onInit)
  }
}
