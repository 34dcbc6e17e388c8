import type { FastifyInstance } from 'fastify'
import FindMyWay, { type HTTPMethod } from 'find-my-way'

/**
 * The methods each path is served with, for 405 answers: a second router
 * (find-my-way, the one Fastify uses, with the same options) that holds every
 * route the app registers, so a path matches here exactly when it would match
 * there with another method.
 */
export function routeMethods(
  app: FastifyInstance,
  options: { ignoreTrailingSlash: boolean; maxParamLength: number },
): (url: string) => string[] {
  const router = FindMyWay(options)
  const methods = new Set<HTTPMethod>()
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat() as HTTPMethod[]) {
      methods.add(method)
      router.on(method, route.url, () => {})
    }
  })
  return (url) => [...methods].filter((method) => router.find(method, url) !== null).sort()
}
