import closeWithGrace from 'close-with-grace'
import type { FastifyInstance } from 'fastify'
import type { Database } from './db/database.ts'
import type { RateLimiter } from './http/rate-limit.ts'
import type { Folding } from './modules/orders/changes/changes.folding.ts'
import type { PreflightRunner } from './modules/preflight/index.ts'
import type { registerInstance } from './modules/system/instances.ts'
import type { FileStorage } from './modules/uploads/storage/storage.ts'
import type { Dispatcher } from './modules/webhooks/worker/dispatcher.ts'
import { handleStopRequests, STOP_SIGNALS } from './stop-requests.ts'

/** What stopping stops, after the app's requests: in this order. */
export interface Running {
  sweeper: NodeJS.Timeout
  pruner: NodeJS.Timeout
  /** Started last of all (the metrics port), so read when stopping. */
  metricsServer: () => { close(): Promise<void> } | undefined
  dispatcher: Dispatcher | undefined
  folding: Folding
  preflight: PreflightRunner
  rateLimiter: RateLimiter
  storage: FileStorage
  registration: Awaited<ReturnType<typeof registerInstance>> | undefined
  workerDb: Database
  db: Database
  /** Traces, sent before the process ends. */
  telemetry: { shutdown(): Promise<void> } | undefined
}

/**
 * Stops on a signal or a stop request: drains the requests in flight, then
 * stops the rest; asked again, exits at once.
 */
export function stopOnRequest(app: FastifyInstance, running: Running): void {
  const { sweeper, pruner, dispatcher, folding, rateLimiter, storage, registration, workerDb, db } = running
  const closer = closeWithGrace({ delay: 20_000, skip: [...STOP_SIGNALS] }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error')
    else if (signal) app.log.info({ signal }, 'shutting down: draining in-flight requests')
    // Stops accepting connections and waits for in-flight requests to finish.
    clearInterval(sweeper)
    clearInterval(pruner)
    // A keep-alive connection whose request was in flight when closing began
    // stays open after its response (until keepAliveTimeout, past the forced
    // exit): close such connections as soon as they are idle.
    const reaper = setInterval(() => app.server.closeIdleConnections(), 100)
    try {
      await app.close()
    } finally {
      clearInterval(reaper)
    }
    await running.metricsServer()?.close()
    // Attempts in flight get a few seconds; unfinished claims go back to the table.
    await dispatcher?.stop()
    await folding.stop()
    await running.preflight.stop()
    await rateLimiter.close()
    await storage.close?.()
    await registration?.stop()
    if (workerDb !== db) await workerDb.destroy()
    await db.destroy()
    await running.telemetry?.shutdown().catch((err) => app.log.warn({ err }, 'could not send the last spans'))
    app.log.info('stopped')
  })

  handleStopRequests({
    stop: (reason) => {
      app.log.info(reason, 'shutting down: draining in-flight requests')
      void closer.close()
    },
    abort: (signal) => {
      app.log.error({ signal }, 'asked again to stop: exiting at once')
      process.exit(1)
    },
    // Started by an npm script: npm is the parent, and this process must not outlive it.
    watchParent: process.env.npm_lifecycle_event !== undefined,
  })
}
