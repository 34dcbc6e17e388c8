import type { Surfaces } from '../feature.ts'
import { docsRoutes } from './docs.routes.ts'
import type { DocsService } from './docs.service.ts'

export { createDocsService, type DocsService } from './docs.service.ts'

/** /docs: the API reference and the guides. */
export function docsSurfaces(s: { docs: DocsService }): Surfaces {
  return { root: [docsRoutes(s)] }
}
