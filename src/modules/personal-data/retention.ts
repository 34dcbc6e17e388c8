import { setTimeout as sleep } from 'node:timers/promises'
import type { Database } from '../../db/database.ts'
import { ENVIRONMENTS } from '../../db/schema.ts'
import { AppError } from '../../http/errors.ts'
import type { Clock } from '../../lib/clock.ts'
import { isUuid } from '../../lib/ids.ts'
import { type AuditActor, recordAudit } from '../audit/index.ts'
import {
  findRetention,
  lockRetention,
  type Retention,
  retentionOfAll,
  setPrunedThrough,
  updateRetention,
} from '../organizations/index.ts'
import { pruneBodies } from '../requests/index.ts'
import { pruneAnswers } from '../webhooks/index.ts'
import type { Eraser } from './erasure.ts'
import { findCustomerOrders, finishedOrdersToErase, oldTestOrdersToErase } from './personal-data.repo.ts'

/** Rows a background prune changes per statement. */
export const PRUNE_BATCH = 500

/**
 * Each organization's retention: shown, set (audited) and applied by the
 * background prune, in batches that rest as long as they took; finished
 * orders go through the eraser's batches.
 */
export function createRetention(deps: {
  db: Database
  clock: Clock
  eraser: Pick<Eraser, 'eraseBatch' | 'batchSize'>
  /** How long the background prune rests after each batch, as a share of the batch's time (1). */
  pruneRest?: number
}) {
  const { db, clock } = deps
  const { eraseBatch, batchSize } = deps.eraser
  const pruneRest = deps.pruneRest ?? 1

  async function requireRetention(organizationId: string): Promise<Retention> {
    const retention = isUuid(organizationId) ? await findRetention(db, organizationId) : undefined
    if (!retention) throw new AppError('not_found', { message: 'No organization with this id.' })
    return retention
  }

  /**
   * A background prune's batch, then a rest as long as it took: the prune
   * works at most half the time, so that intake beside it keeps most of the
   * machine (a foreground erasure does not rest).
   */
  async function paced<T>(batch: () => Promise<T>): Promise<T> {
    const started = performance.now()
    const result = await batch()
    await sleep(Math.min(1000, (performance.now() - started) * pruneRest))
    return result
  }

  /** One organization's request bodies past its retention (each environment). */
  async function pruneRequestBodies(organizationId: string, days: number): Promise<number> {
    const olderThan = new Date(clock.now().getTime() - days * 86_400_000)
    let dropped = 0
    for (const environment of ENVIRONMENTS) {
      for (;;) {
        const n = await paced(() => pruneBodies(db, { organizationId, environment }, olderThan, PRUNE_BATCH))
        dropped += n
        if (n < PRUNE_BATCH) break
      }
    }
    return dropped
  }

  /**
   * One organization's receivers' answers past its retention: the deliveries
   * created since the last prune's cut-off and before this one's, in batches.
   */
  async function pruneWebhookAnswers(
    organizationId: string,
    days: number,
    from: Date | null,
  ): Promise<number> {
    const olderThan = new Date(clock.now().getTime() - days * 86_400_000)
    let dropped = 0
    for (const environment of ENVIRONMENTS) {
      let at = from
      for (;;) {
        const batch = await paced(() =>
          pruneAnswers(db, { organizationId, environment }, at, olderThan, PRUNE_BATCH),
        )
        dropped += batch.dropped
        at = batch.through
        if (!batch.more) break
      }
    }
    await setPrunedThrough(db, organizationId, 'webhook_answers_pruned_through', olderThan)
    return dropped
  }

  /** Orders the prune found, erased with their personalization in one paced batch; how many were erased. */
  async function eraseFound(organizationId: string, found: { id: string }[]): Promise<number> {
    const orders = await findCustomerOrders(
      db,
      organizationId,
      { orderIds: found.map((o) => o.id) },
      batchSize,
    )
    return (await paced(() => eraseBatch(organizationId, orders, 'all'))).orders
  }

  /** One organization's orders finished longer ago than its retention: erased with their personalization. */
  async function pruneFinishedOrders(
    organizationId: string,
    days: number,
    from: Date | null,
  ): Promise<number> {
    const olderThan = new Date(clock.now().getTime() - days * 86_400_000)
    let erased = 0
    let mark = from
    for (;;) {
      const batch = await finishedOrdersToErase(db, organizationId, mark, olderThan, batchSize)
      if (batch.length > 0) erased += await eraseFound(organizationId, batch)
      if (batch.length < batchSize) break
      mark = batch.at(-1)!.finished_at
      await setPrunedThrough(db, organizationId, 'personal_data_pruned_through', mark)
    }
    await setPrunedThrough(db, organizationId, 'personal_data_pruned_through', olderThan)
    for (;;) {
      const tests = await oldTestOrdersToErase(db, organizationId, olderThan, batchSize)
      if (tests.length === 0) break
      erased += await eraseFound(organizationId, tests)
      if (tests.length < batchSize) break
    }
    return erased
  }

  return {
    /** The organization's id, once it is known to exist (an operator's surfaces name any). */
    async organization(organizationId: string): Promise<string> {
      await requireRetention(organizationId)
      return organizationId
    },

    /** How long the organization keeps request bodies, receivers' answers and finished orders' personal data. */
    retention: (organizationId: string) => requireRetention(organizationId),

    /** Sets the organization's retention (audited with before and after); the next prune applies it. */
    async setRetention(organizationId: string, next: Retention, actor: AuditActor): Promise<Retention> {
      return db.transaction().execute(async (trx) => {
        const before = isUuid(organizationId) ? await lockRetention(trx, organizationId) : undefined
        if (!before) throw new AppError('not_found', { message: 'No organization with this id.' })
        if (JSON.stringify(before) === JSON.stringify(next)) return before
        await updateRetention(trx, organizationId, next)
        await recordAudit(trx, clock, {
          organizationId,
          actor,
          action: 'organization.retention_set',
          subject: organizationId,
          details: { before, after: next },
        })
        return next
      })
    },

    /**
     * Every organization's retention applied, in batches: request bodies and
     * receivers' answers past their days, and the personal data of orders
     * finished longer ago than the organization keeps it. Instances may prune
     * at once: every step is idempotent (an erasure batch locks its orders).
     * Answers what went.
     */
    async prune(): Promise<{ request_bodies: number; webhook_answers: number; orders: number }> {
      const done = { request_bodies: 0, webhook_answers: 0, orders: 0 }
      for (const org of await retentionOfAll(db)) {
        done.request_bodies += await pruneRequestBodies(org.id, org.request_body_retention_days)
        done.webhook_answers += await pruneWebhookAnswers(
          org.id,
          org.webhook_answer_retention_days,
          org.webhook_answers_pruned_through,
        )
        if (org.personal_data_retention_days !== null) {
          done.orders += await pruneFinishedOrders(
            org.id,
            org.personal_data_retention_days,
            org.personal_data_pruned_through,
          )
        }
      }
      return done
    },
  }
}
