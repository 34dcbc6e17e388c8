import type { Database } from '../../db/database.ts'
import type { ErrorContext } from '../../http/error-handler.ts'
import { AppError, ERROR_CATALOG, type ErrorCode } from '../../http/errors.ts'
import { renderErrorIndex, renderErrorPage } from './error-pages.ts'
import { pingDatabase } from './system.repo.ts'

const isErrorCode = (code: string): code is ErrorCode => Object.hasOwn(ERROR_CATALOG, code)

/** How long readiness waits for the database: a probe answers within about a second, whatever the statement timeout. */
export const READY_TIMEOUT_MS = 1000

/** Readiness and the error reference pages. */
export function createSystemService(deps: { db: Database; readyTimeoutMs?: number }) {
  const timeoutMs = deps.readyTimeoutMs ?? READY_TIMEOUT_MS
  /** The ping under way: probes during a stall share it instead of queueing one each for the pool. */
  let ping: Promise<'ok' | 'failed'> | undefined

  return {
    /** Resolves when the service can serve requests; 503 service_unavailable, with the reason, otherwise. */
    async ready(): Promise<void> {
      ping ??= pingDatabase(deps.db).then(
        () => 'ok' as const,
        () => 'failed' as const,
      )
      const current = ping
      void current.finally(() => {
        if (ping === current) ping = undefined
      })
      let timer: NodeJS.Timeout | undefined
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(resolve, timeoutMs, 'late')
      })
      const outcome = await Promise.race([current, late]).finally(() => clearTimeout(timer))
      if (outcome === 'late') {
        throw new AppError('service_unavailable', {
          message: `The database did not answer within ${timeoutMs} ms.`,
        })
      }
      if (outcome === 'failed') {
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
