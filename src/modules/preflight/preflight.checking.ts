import type { Transaction } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { DB } from '../../db/schema.ts'
import type { ItemVerdict } from '../../db/tables/preflight.ts'
import type { Clock } from '../../lib/clock.ts'
import { newId } from '../../lib/ids.ts'
import type { FileStorage } from '../uploads/storage/storage.ts'
import { MEASURED_TYPES } from './facts.ts'
import type { Measuring } from './measuring.ts'
import {
  type ClaimedOrder,
  claimQueued,
  findContentTypes,
  findFacts,
  findOrderForPreflight,
  findPrintSpecs,
  findUploadsToMeasure,
  finishQueued,
  insertFacts,
  saveVerdict,
} from './preflight.repo.ts'
import { itemVerdict, orderVerdict, preflightFile, type StoredFacts } from './preflight.ts'

/** After this many claims of one order, files still not measured are recorded as not measurable. */
const MAX_ATTEMPTS = 3

export interface CheckingDeps {
  db: Database
  clock: Clock
  storage: FileStorage
  measuring: Measuring
  /**
   * Told, in the transaction that stores an order's verdict, its items'
   * verdicts in position order: automation applies the rules that wait for
   * them, or the verdict is not stored and the order is checked again.
   */
  onChecked?: (trx: Transaction<DB>, order: CheckedOrder) => Promise<void>
}

export interface CheckedOrder {
  id: string
  organizationId: string
  items: ItemVerdict[]
}

/**
 * The runner's work on one queued order: measures its files that have no
 * facts yet, then stores the order's verdict against its products' specs as
 * they are now.
 */
export function createChecking(deps: CheckingDeps) {
  const { db, clock, storage, measuring } = deps

  async function measureUpload(
    upload: { id: string; organization_id: string; storage_key: string; content_type: string | null },
    giveUp: string | undefined,
  ): Promise<void> {
    const at = clock.now()
    const base = { upload_id: upload.id, organization_id: upload.organization_id, measured_at: at }
    if (giveUp) {
      await insertFacts(db, { ...base, measured: false, facts: null, reason: giveUp, thumbnail_key: null })
      return
    }
    const bytes = await storage.read(upload.storage_key)
    const result = await measuring.measure(bytes, upload.content_type!)
    if (!result.ok) {
      await insertFacts(db, {
        ...base,
        measured: false,
        facts: null,
        reason: result.reason,
        thumbnail_key: null,
      })
      return
    }
    let thumbnailKey: string | null = null
    if (result.thumbnail) {
      thumbnailKey = `uploads/${upload.id}/thumbnail-${newId()}.webp`
      await storage.write(thumbnailKey, Buffer.from(result.thumbnail))
    }
    const stored = await insertFacts(db, {
      ...base,
      measured: true,
      facts: result.facts,
      reason: null,
      thumbnail_key: thumbnailKey,
    })
    // Another instance measured it first: its thumbnail is the one kept.
    if (!stored && thumbnailKey) await storage.delete(thumbnailKey).catch(() => {})
  }

  async function check(claimed: ClaimedOrder): Promise<void> {
    const order = await findOrderForPreflight(db, claimed.order_id)
    if (!order) {
      await finishQueued(db, claimed)
      return
    }
    const uploadIds = [...new Set(order.items.flatMap((i) => i.files.map((f) => f.upload_id)))]
    const toMeasure = (await findUploadsToMeasure(db, uploadIds)).filter(
      (u) => u.content_type !== null && MEASURED_TYPES.has(u.content_type),
    )
    const giveUp =
      claimed.attempts > MAX_ATTEMPTS
        ? `measuring was tried ${MAX_ATTEMPTS} times and did not finish.`
        : undefined
    for (const upload of toMeasure) await measureUpload(upload, giveUp)
    const [facts, specs, types] = await Promise.all([
      findFacts(db, uploadIds),
      findPrintSpecs(
        db,
        order.items.flatMap((i) => (i.product_id ? [i.product_id] : [])),
      ),
      findContentTypes(db, uploadIds),
    ])
    const byUpload = new Map<string, StoredFacts>(facts.map((f) => [f.upload_id, f]))
    const items = order.items.map((item) =>
      item.files.map((f) =>
        preflightFile(
          { role: f.role, contentType: types.get(f.upload_id) ?? null },
          {
            linked: item.product_id !== null,
            specs: item.product_id ? (specs.get(item.product_id) ?? null) : null,
          },
          byUpload.get(f.upload_id),
        ),
      ),
    )
    const verdict = orderVerdict(items.flat())
    const itemVerdicts = items.map(itemVerdict)
    // The rules first: they lock the order as its other changes do, before the verdict's row.
    await db.transaction().execute(async (trx) => {
      await deps.onChecked?.(trx, {
        id: order.id,
        organizationId: order.organization_id,
        items: itemVerdicts,
      })
      await saveVerdict(trx, {
        order_id: order.id,
        organization_id: order.organization_id,
        environment: order.environment,
        ...verdict,
        items: JSON.stringify(itemVerdicts),
        checked_at: clock.now(),
      })
      await finishQueued(trx, claimed)
    })
  }

  return {
    /** Claims up to `limit` queued orders and checks them; resolves to how many were claimed. */
    async runOnce(limit: number, leaseMs: number): Promise<number> {
      const claimed = await claimQueued(db, clock.now(), leaseMs, limit)
      for (const order of claimed) await check(order)
      return claimed.length
    },
  }
}
