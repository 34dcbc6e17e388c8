// `node --import ./bench/hooks/pglite-in-worker.ts src/main.ts` runs the service
// unchanged except that the embedded PGlite lives in a worker thread: imports of
// @electric-sql/pglite from src/ resolve to a shim whose PGlite.create() returns a
// WorkerPGlite (../pglite-worker.ts). Bench only; src/ knows nothing of it.
import { registerHooks } from 'node:module'

const shim = new URL('./pglite-shim.ts', import.meta.url).href
const src = new URL('../../src/', import.meta.url).href

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier === '@electric-sql/pglite' && context.parentURL?.startsWith(src)) {
      return { url: shim, format: 'module', shortCircuit: true }
    }
    return nextResolve(specifier, context)
  },
})
