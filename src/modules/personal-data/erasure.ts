import type { Database } from '../../db/database.ts'
import { AppError } from '../../http/errors.ts'
import type { Clock } from '../../lib/clock.ts'
import { auditEntriesOf, setAuditDetails } from '../audit/index.ts'
import { eraseOrderCustomers, lockOrdersToErase, setItemPersonalization } from '../orders/index.ts'
import { dropBodiesHolding, dropBodiesOfOrders } from '../requests/index.ts'
import { eraseFileNames } from '../uploads/index.ts'
import { dropAnswersOfOrders } from '../webhooks/index.ts'
import {
  type CustomerMatch,
  type CustomerOrder,
  fileNamesOf,
  findCustomerOrders,
  itemsOf,
} from './personal-data.repo.ts'
import { erasedPersonalization, personalTexts, scrubDetails } from './scrub.ts'

/** Orders erased per transaction: each batch is whole or not at all, and intake never waits long for it. */
export const ERASURE_BATCH = 200
/** Orders one erasure or export takes at most; a larger customer is taken in turns (picked orders). */
export const MAX_CUSTOMER_ORDERS = 50_000
/** Orders read per statement by a preview or an export. */
export const READ_CHUNK = 500
/** Orders a preview lists (it counts them all). */
export const PREVIEW_ORDERS = 20

/** Whose personalization goes with the customer: finished orders' (the default), every order's, or none. */
export const PERSONALIZATION_CHOICES = ['finished', 'all', 'none'] as const
export type PersonalizationChoice = (typeof PERSONALIZATION_CHOICES)[number]

/** Finished: production completed or cancelled; test orders are never produced, so they count as finished. */
export const isFinished = (order: Pick<CustomerOrder, 'environment' | 'production_status'>) =>
  order.environment === 'test' ||
  order.production_status === 'completed' ||
  order.production_status === 'cancelled'

export const wantsPersonalization = (order: CustomerOrder, choice: PersonalizationChoice) =>
  choice === 'all' || (choice === 'finished' && isFinished(order))

/** Still to erase: its customer is there, or its personalization is wanted and still there. */
const toErase = (order: CustomerOrder, choice: PersonalizationChoice) =>
  order.erased_at === null ||
  (wantsPersonalization(order, choice) && order.personalization_erased_at === null)

export const chunks = <T>(list: T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(list.length / size) }, (_, i) => list.slice(i * size, (i + 1) * size))

function requireMatch(match: CustomerMatch): void {
  const given = [match.email, match.phone, match.name].filter((v) => v !== undefined && v.trim() !== '')
  if (given.length === 0 && (match.orderIds ?? []).length === 0) {
    throw AppError.validation(
      [
        {
          field: 'email',
          code: 'required',
          message: 'Give the customer’s e-mail, phone or name, or pick orders.',
        },
      ],
      'Say whose data: an e-mail, a phone number, a name or orders.',
    )
  }
}

/** Which kinds of search found the orders (never the values). */
export function searchedBy(match: CustomerMatch): string[] {
  return [
    ...(match.email ? ['email'] : []),
    ...(match.phone ? ['phone'] : []),
    ...(match.name ? ['name'] : []),
    ...((match.orderIds ?? []).length > 0 ? ['orders'] : []),
  ]
}

export interface ErasureCounts {
  orders: number
  personalization: number
  request_log_lines: number
  audit_entries: number
  webhook_answers: number
}

export const noCounts = (): ErasureCounts => ({
  orders: 0,
  personalization: 0,
  request_log_lines: 0,
  audit_entries: 0,
  webhook_answers: 0,
})

export function add(into: ErasureCounts, more: ErasureCounts): void {
  for (const key of Object.keys(into) as (keyof ErasureCounts)[]) into[key] += more[key]
}

/**
 * The erasure's machinery, which a member's erasure and the retention prune
 * share: the customer's orders found, and erased a batch at a time, each
 * batch one transaction that locks its orders, re-reads them and erases what
 * is still there with every copy of it.
 */
export function createEraser(deps: { db: Database; clock: Clock; batch?: number }) {
  const { db, clock } = deps
  const batchSize = deps.batch ?? ERASURE_BATCH

  async function customerOrders(organizationId: string, match: CustomerMatch): Promise<CustomerOrder[]> {
    requireMatch(match)
    const orders = await findCustomerOrders(db, organizationId, match, MAX_CUSTOMER_ORDERS + 1)
    if (orders.length > MAX_CUSTOMER_ORDERS) {
      throw AppError.validation([
        {
          field: 'email',
          code: 'too_many',
          message: `More than ${MAX_CUSTOMER_ORDERS} orders match: pick the orders to take first.`,
        },
      ])
    }
    return orders
  }

  /** What was searched and what the orders hold: the texts looked for in the request log's bodies. */
  const searchedTexts = (match: CustomerMatch, orders: CustomerOrder[]) =>
    personalTexts([
      match.email,
      match.phone,
      match.name,
      ...orders.flatMap((o) => [o.customer_email, o.customer_phone, o.erased_at ? null : o.customer_name]),
    ])

  /** One batch, under the orders' locks: the orders, their items and files, and every copy of them. */
  async function eraseBatch(
    organizationId: string,
    batch: CustomerOrder[],
    choice: PersonalizationChoice,
  ): Promise<ErasureCounts> {
    return db.transaction().execute(async (trx) => {
      const found = new Map(batch.map((o) => [o.id, o]))
      const locked = await lockOrdersToErase(
        trx,
        organizationId,
        batch.map((o) => o.id),
      )
      // As they are now: another erasure may have taken some meanwhile.
      const current = locked.map((row) => ({
        ...found.get(row.id)!,
        erased_at: row.erased_at,
        personalization_erased_at: row.personalization_erased_at,
        row,
      }))
      const now = current.filter((o) => toErase(o, choice))
      const counts = noCounts()
      if (now.length === 0) return counts
      const at = clock.now()
      const personalized = new Set(now.filter((o) => wantsPersonalization(o, choice)).map((o) => o.id))
      const ids = now.map((o) => o.id)
      const items = await itemsOf(trx, ids)
      const theirs = items.filter((i) => personalized.has(i.order_id))
      const texts = personalTexts([
        ...now.flatMap(({ row }) => [
          row.customer_email,
          row.customer_phone,
          row.erased_at ? null : row.customer_name,
        ]),
        ...theirs.flatMap((i) => Object.values(i.personalization)),
      ])
      const customerOnly = ids.filter((id) => !personalized.has(id))
      if (customerOnly.length > 0) await eraseOrderCustomers(trx, customerOnly, at, false)
      if (personalized.size > 0) {
        await eraseOrderCustomers(trx, [...personalized], at, true)
        await setItemPersonalization(
          trx,
          theirs.map((i) => ({ id: i.id, personalization: erasedPersonalization(i.personalization) })),
        )
        const uploadIds = theirs.flatMap((i) => i.files.map((f) => f.upload_id))
        // The upload requests (their bodies name the files) go with the names.
        const names = personalTexts(await fileNamesOf(trx, uploadIds))
        counts.request_log_lines += await dropBodiesHolding(trx, organizationId, names)
        await eraseFileNames(trx, uploadIds)
      }
      counts.request_log_lines += await dropBodiesOfOrders(trx, organizationId, ids)
      const entries = await auditEntriesOf(trx, organizationId, ids)
      const scrubbed = entries
        .map((e) => ({
          id: e.id,
          was: JSON.stringify(e.details),
          details: scrubDetails(e.details, texts, personalized.has(e.subject)),
        }))
        .filter((e) => JSON.stringify(e.details) !== e.was)
      await setAuditDetails(trx, scrubbed)
      counts.audit_entries = scrubbed.length
      counts.webhook_answers = await dropAnswersOfOrders(trx, ids)
      counts.orders = now.length
      counts.personalization = personalized.size
      return counts
    })
  }

  /** The orders in batches; an interrupted erasure run again finishes what was left. */
  async function eraseOrders(
    organizationId: string,
    orders: CustomerOrder[],
    choice: PersonalizationChoice,
  ): Promise<ErasureCounts> {
    const total = noCounts()
    for (const batch of chunks(
      orders.filter((o) => toErase(o, choice)),
      batchSize,
    )) {
      add(total, await eraseBatch(organizationId, batch, choice))
    }
    return total
  }

  return { batchSize, customerOrders, searchedTexts, eraseBatch, eraseOrders }
}

export type Eraser = ReturnType<typeof createEraser>
