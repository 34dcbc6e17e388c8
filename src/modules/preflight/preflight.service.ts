import type { Readable } from 'node:stream'
import type { Database } from '../../db/database.ts'
import type { OrderPreflightTable } from '../../db/tables/preflight.ts'
import { AppError } from '../../http/errors.ts'
import type { Clock } from '../../lib/clock.ts'
import { isUuid } from '../../lib/ids.ts'
import type { FileStorage } from '../uploads/storage/storage.ts'
import { createMeasuring, type Measuring } from './measuring.ts'
import { type CheckingDeps, createChecking } from './preflight.checking.ts'
import {
  enqueueOpenOrdersOf,
  enqueueOrders,
  findContentTypes,
  findFacts,
  findOrderForPreflight,
  findPrintSpecs,
  findVerdicts,
  isQueued,
} from './preflight.repo.ts'
import { type FilePreflight, type FileStatus, orderVerdict, preflightFile } from './preflight.ts'
import { factsInWords } from './preflight.words.ts'

export interface PreflightRunner {
  /** Checks everything queued so far (tests, and before stopping). */
  drain(): Promise<void>
  stop(): Promise<void>
}

const RANK: Record<FileStatus, number> = {
  not_checked: 0,
  ok: 1,
  warning: 2,
  pending: 3,
  problem: 4,
  unmeasurable: 4,
}

/**
 * Preflight (docs/preflight.md): the runner that measures the files of
 * queued orders and stores their verdicts, and the order pages' view of
 * their files against their products' specs as they are now.
 */
export function createPreflightService(deps: {
  db: Database
  clock: Clock
  storage: FileStorage
  measuring?: Measuring
  /** In the transaction storing each order's verdict: automation's rules that wait for it. */
  onChecked?: CheckingDeps['onChecked']
}) {
  const { db, clock, storage } = deps
  const measuring = deps.measuring ?? createMeasuring()
  const checking = createChecking({ ...deps, measuring })

  async function ownOrder(organizationId: string | undefined, orderId: string) {
    const order = isUuid(orderId) ? await findOrderForPreflight(db, orderId) : undefined
    if (!order || (organizationId !== undefined && order.organization_id !== organizationId)) {
      throw new AppError('not_found', { message: 'No order with this id.' })
    }
    return order
  }

  return {
    /**
     * The order's files against their products' specs as they are now: for
     * the member's order page (organizationId) or the operator's (undefined).
     */
    async forOrder(organizationId: string | undefined, orderId: string) {
      const order = await ownOrder(organizationId, orderId)
      const uploadIds = order.items.flatMap((i) => i.files.map((f) => f.upload_id))
      const [facts, specs, types, queued] = await Promise.all([
        findFacts(db, uploadIds),
        findPrintSpecs(
          db,
          order.items.flatMap((i) => (i.product_id ? [i.product_id] : [])),
        ),
        findContentTypes(db, uploadIds),
        isQueued(db, order.id),
      ])
      const byUpload = new Map(facts.map((f) => [f.upload_id, f]))
      const all: FilePreflight[] = []
      const items = order.items.map((item) => {
        const files = item.files.map((f) => {
          const stored = byUpload.get(f.upload_id)
          const result = preflightFile(
            { role: f.role, contentType: types.get(f.upload_id) ?? null },
            {
              linked: item.product_id !== null,
              specs: item.product_id ? (specs.get(item.product_id) ?? null) : null,
            },
            stored,
          )
          all.push(result)
          return {
            upload_id: f.upload_id,
            role: f.role,
            status: result.status,
            reason: result.reason ?? null,
            spec: result.spec ?? null,
            checks: result.checks,
            facts: stored?.facts ? factsInWords(stored.facts) : [],
            measured_at: stored?.measured_at.toISOString() ?? null,
            thumbnail: stored?.thumbnail_key != null,
          }
        })
        const status = files.reduce<FileStatus>(
          (w, f) => (RANK[f.status] > RANK[w] ? f.status : w),
          'not_checked',
        )
        return { item_id: item.id, status: status === 'unmeasurable' ? 'problem' : status, files }
      })
      const verdict = orderVerdict(all)
      const pending =
        all.some((f) => f.status === 'pending') || (queued && all.some((f) => f.status !== 'not_checked'))
      return {
        order_id: order.id,
        status: pending && verdict.verdict !== 'problem' ? 'pending' : verdict.verdict,
        problems: verdict.problems,
        warnings: verdict.warnings,
        items,
      }
    },

    /** A file's thumbnail, if one was made: for the member's organization's order, or the operator's. */
    async thumbnail(
      organizationId: string | undefined,
      orderId: string,
      uploadId: string,
    ): Promise<{ stream: Readable }> {
      const order = await ownOrder(organizationId, orderId)
      const inOrder = order.items.some((i) => i.files.some((f) => f.upload_id === uploadId))
      const facts = inOrder ? (await findFacts(db, [uploadId]))[0] : undefined
      if (!facts?.thumbnail_key) throw new AppError('not_found', { message: 'No thumbnail of this file.' })
      return { stream: await storage.open(facts.thumbnail_key) }
    },

    /** Queues orders to be checked (an order change that touched files). */
    /** The stored verdict of each checked order among these (the Orders list's badge). */
    async verdicts(orderIds: string[]): Promise<Map<string, OrderPreflightTable['verdict']>> {
      return new Map((await findVerdicts(db, orderIds)).map((v) => [v.order_id, v.verdict]))
    },

    enqueue: (orders: { id: string; organizationId: string }[], within: Database = db) =>
      enqueueOrders(within, orders, clock.now()),

    /** Queues the product's orders not started yet, to be checked against its specs again (a spec change, a sku link). */
    recheckProduct: (productId: string, within: Database = db) =>
      enqueueOpenOrdersOf(within, productId, clock.now()),

    /** Claims and checks up to `limit` queued orders; resolves to how many it claimed. */
    runOnce: (limit = 5, leaseMs = 5 * 60_000) => checking.runOnce(limit, leaseMs),

    /** Starts this instance's runner: every instance runs one, taking queued orders with SKIP LOCKED. */
    start(options: { onError: (err: unknown) => void; intervalMs?: number }): PreflightRunner {
      const intervalMs = options.intervalMs ?? 500
      let stopped = false
      let running: Promise<void> = Promise.resolve()
      let timer: NodeJS.Timeout | undefined
      const round = async () => {
        for (;;) if ((await checking.runOnce(5, 5 * 60_000)) === 0) return
      }
      const tick = () => {
        running = round()
          .catch(options.onError)
          .finally(() => {
            if (!stopped) {
              timer = setTimeout(tick, intervalMs)
              timer.unref()
            }
          })
      }
      timer = setTimeout(tick, intervalMs)
      timer.unref()
      return {
        async drain() {
          await running
          await round()
        },
        async stop() {
          stopped = true
          clearTimeout(timer)
          await running
          measuring.close()
        },
      }
    },

    close: () => measuring.close(),
  }
}

export type PreflightService = ReturnType<typeof createPreflightService>
