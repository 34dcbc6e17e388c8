import type { Database } from '../../db/database.ts'
import type { ErrorContext } from '../../http/error-handler.ts'
import { AppError, ERROR_CATALOG, type ErrorCode } from '../../http/errors.ts'
import { renderErrorIndex, renderErrorPage } from './error-pages.ts'
import { pingDatabase } from './system.repo.ts'

const isErrorCode = (code: string): code is ErrorCode => Object.hasOwn(ERROR_CATALOG, code)

/** Readiness and the error reference pages. */
export function createSystemService(deps: { db: Database }) {
  return {
    /** Resolves when the service can serve requests; 503 service_unavailable otherwise. */
    async ready(): Promise<void> {
      try {
        await pingDatabase(deps.db)
      } catch {
        throw new AppError('service_unavailable', { message: 'The database is not reachable.' })
      }
    },

    errorIndex: (context: ErrorContext) => renderErrorIndex(context),

    /** The reference page of an error code, or 404 not_found. */
    errorPage(code: string, context: ErrorContext): string {
      if (!isErrorCode(code)) throw new AppError('not_found', { message: 'No such error code.' })
      return renderErrorPage(code, context)
    },
  }
}

export type SystemService = ReturnType<typeof createSystemService>
