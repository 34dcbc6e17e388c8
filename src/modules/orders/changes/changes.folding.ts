import type { Transaction } from 'kysely'
import type { Database } from '../../../db/database.ts'
import type { DB } from '../../../db/schema.ts'
import { analyzeTables, estimatedOrders } from '../../../db/upkeep.ts'
import { recordedSpan } from '../../../telemetry/tracing.ts'
import { foldOrderChanges, vacuumOrderChanges } from './changes.repo.ts'

export interface FoldingOptions {
  db: Database
  /**
   * Vacuum order_changes after this many folded rows (orders and status
   * changes; default 2000). Each fold finds its rows by scanning the table,
   * dead rows included: PostgreSQL's autovacuum looks at a table at most once
   * a minute, so at 1 500 orders a second folds read 90 000 dead rows each
   * and kept a backend busy; the embedded database has no autovacuum at all.
   */
  vacuumEvery?: number
  /**
   * The embedded database has no autovacuum: gather statistics as the orders
   * grow, after this many folded rows or a tenth of the stored orders,
   * whichever is more (autovacuum's own rule, near enough).
   */
  analyzeEvery?: number
  /**
   * Other logs folded on the same tick, after the order changes (the
   * webhook outcomes): each moves up to `limit` rows and returns how many,
   * or null when another instance holds its lock.
   */
  alsoFold?: readonly ((trx: Transaction<DB>, limit: number) => Promise<number | null>)[]
  onError: (err: unknown) => void
  intervalMs?: number
  batch?: number
}

export interface Folding {
  /** Folds everything recorded so far (tests, and before stopping). */
  drain(): Promise<number>
  stop(): Promise<void>
}

/**
 * Folds order_changes into the order aggregates a few times a second, off the
 * order path. Every instance runs it; one folds at a time (the others find
 * the lock taken and try again on their next tick).
 */
export function startOrderChangeFolding(options: FoldingOptions): Folding {
  const { db } = options
  const intervalMs = options.intervalMs ?? 200
  const batch = options.batch ?? 5000
  const vacuumEvery = options.vacuumEvery ?? 2000
  let sinceVacuum = 0
  let sinceAnalyze = 0
  let storedOrders: number | undefined
  let stopped = false
  let running: Promise<number> = Promise.resolve(0)
  let timer: NodeJS.Timeout | undefined

  async function foldAll(): Promise<number> {
    let total = 0
    for (;;) {
      const folded = await db.transaction().execute((trx) => foldOrderChanges(trx, batch))
      if (folded === null) return total
      total += folded
      if (folded < batch) break
    }
    for (const fold of options.alsoFold ?? []) {
      for (;;) {
        const folded = await db.transaction().execute((trx) => fold(trx, batch))
        if (folded === null || folded < batch) break
      }
    }
    sinceVacuum += total
    sinceAnalyze += total
    if (sinceVacuum >= vacuumEvery) {
      sinceVacuum = 0
      await vacuumOrderChanges(db)
    }
    const analyzeEvery = options.analyzeEvery
    if (analyzeEvery !== undefined && sinceAnalyze >= analyzeEvery) {
      storedOrders ??= await estimatedOrders(db)
      if (sinceAnalyze >= Math.max(analyzeEvery, storedOrders / 10)) {
        sinceAnalyze = 0
        await analyzeTables(db)
        storedOrders = await estimatedOrders(db)
      }
    }
    return total
  }

  /** A fold, and its span when it folded something (most find nothing, five times a second). */
  async function fold(): Promise<number> {
    const started = new Date()
    const folded = await foldAll()
    if (folded > 0) recordedSpan('fold order changes', started, { 'order_intake.folded': folded })
    return folded
  }

  function tick(): void {
    running = fold()
      .catch((err) => {
        options.onError(err)
        return 0
      })
      .finally(() => {
        if (stopped) return
        timer = setTimeout(tick, intervalMs)
        timer.unref()
      })
  }
  tick()

  return {
    async drain() {
      await running
      running = fold()
      return running
    },
    async stop() {
      stopped = true
      clearTimeout(timer)
      await running
    },
  }
}
