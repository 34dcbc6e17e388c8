import type { Timeouts } from '../../http/timeouts.ts'
import type { Surfaces } from '../feature.ts'
import { uploadsRoutes } from './uploads.routes.ts'
import type { UploadService } from './uploads.service.ts'

export { createUploadService, type UploadService } from './uploads.service.ts'

/** Production files: upload slots, the PUT of their bytes, and their checks. */
export function uploadsSurfaces(s: { uploads: UploadService; timeouts: Timeouts }): Surfaces {
  return { api: [uploadsRoutes(s)] }
}
export { eraseFileNames } from './personal-data.repo.ts'
