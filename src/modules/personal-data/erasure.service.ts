import { setTimeout as sleep } from 'node:timers/promises'
import type { Database } from '../../db/database.ts'
import { ENVIRONMENTS, type OrderRow } from '../../db/schema.ts'
import { AppError } from '../../http/errors.ts'
import type { Clock } from '../../lib/clock.ts'
import { isUuid, newId } from '../../lib/ids.ts'
import { type AuditActor, auditEntriesOf, recordAudit, setAuditDetails } from '../audit/index.ts'
import { eraseOrderCustomers, lockOrdersToErase, setItemPersonalization } from '../orders/index.ts'
import {
  findRetention,
  lockRetention,
  type Retention,
  retentionOfAll,
  setPrunedThrough,
  updateRetention,
} from '../organizations/index.ts'
import {
  countBodiesToErase,
  dropBodiesHolding,
  dropBodiesOfOrders,
  pruneBodies,
  requestLinesOf,
} from '../requests/index.ts'
import { eraseFileNames } from '../uploads/index.ts'
import {
  answersOf,
  countAnswersOfOrders,
  countEventsOf,
  dropAnswersOfOrders,
  eventsOf,
  pruneAnswers,
} from '../webhooks/index.ts'
import {
  type CustomerMatch,
  type CustomerOrder,
  fileNamesOf,
  findCustomerOrders,
  finishedOrdersToErase,
  itemsOf,
  oldTestOrdersToErase,
  orderRows,
} from './personal-data.repo.ts'
import { erasedPersonalization, personalTexts, scrubDetails } from './scrub.ts'

/** Orders erased per transaction: each batch is whole or not at all, and intake never waits long for it. */
export const ERASURE_BATCH = 200
/** Orders one erasure or export takes at most; a larger customer is taken in turns (picked orders). */
export const MAX_CUSTOMER_ORDERS = 50_000
/** Orders a preview lists (it counts them all). */
export const PREVIEW_ORDERS = 20
/** Rows a background prune changes per statement. */
export const PRUNE_BATCH = 500
/** Orders read per statement by an export. */
const EXPORT_CHUNK = 500

/** Whose personalization goes with the customer: finished orders' (the default), every order's, or none. */
export const PERSONALIZATION_CHOICES = ['finished', 'all', 'none'] as const
export type PersonalizationChoice = (typeof PERSONALIZATION_CHOICES)[number]

/** Finished: production completed or cancelled; test orders are never produced, so they count as finished. */
export const isFinished = (order: Pick<CustomerOrder, 'environment' | 'production_status'>) =>
  order.environment === 'test' ||
  order.production_status === 'completed' ||
  order.production_status === 'cancelled'

const wantsPersonalization = (order: CustomerOrder, choice: PersonalizationChoice) =>
  choice === 'all' || (choice === 'finished' && isFinished(order))

/** Still to erase: its customer is there, or its personalization is wanted and still there. */
const toErase = (order: CustomerOrder, choice: PersonalizationChoice) =>
  order.erased_at === null ||
  (wantsPersonalization(order, choice) && order.personalization_erased_at === null)

const chunks = <T>(list: T[], size: number): T[][] =>
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

const noCounts = (): ErasureCounts => ({
  orders: 0,
  personalization: 0,
  request_log_lines: 0,
  audit_entries: 0,
  webhook_answers: 0,
})

function add(into: ErasureCounts, more: ErasureCounts): void {
  for (const key of Object.keys(into) as (keyof ErasureCounts)[]) into[key] += more[key]
}

/**
 * A customer's personal data on request (docs/personal-data.md): found by
 * e-mail, phone or name, or by orders; previewed, erased from the orders and
 * from every copy the service keeps, or exported. And each organization's
 * retention, pruned in the background. The orders stay: their ids, numbers,
 * items, prices, statuses and dates; their events never held personal data.
 */
export function createPersonalDataService(deps: {
  db: Database
  clock: Clock
  /** The orders as the operator API shows them (an export). */
  orderViews: (rows: OrderRow[]) => Promise<unknown[]>
  /** Request-log lines written before a search of the log (it batches its writes). */
  flushRequestLog: () => Promise<void>
  /** Orders per transaction (ERASURE_BATCH). */
  batch?: number
  /** How long the background prune rests after each batch, as a share of the batch's time (1). */
  pruneRest?: number
}) {
  const { db, clock } = deps
  const batchSize = deps.batch ?? ERASURE_BATCH
  const pruneRest = deps.pruneRest ?? 1

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
      if (batch.length > 0) {
        const orders = await findCustomerOrders(
          db,
          organizationId,
          { orderIds: batch.map((o) => o.id) },
          batchSize,
        )
        erased += (await paced(() => eraseBatch(organizationId, orders, 'all'))).orders
      }
      if (batch.length < batchSize) break
      mark = batch.at(-1)!.finished_at
      await setPrunedThrough(db, organizationId, 'personal_data_pruned_through', mark)
    }
    await setPrunedThrough(db, organizationId, 'personal_data_pruned_through', olderThan)
    for (;;) {
      const tests = await oldTestOrdersToErase(db, organizationId, olderThan, batchSize)
      if (tests.length === 0) break
      const orders = await findCustomerOrders(
        db,
        organizationId,
        { orderIds: tests.map((o) => o.id) },
        batchSize,
      )
      erased += (await paced(() => eraseBatch(organizationId, orders, 'all'))).orders
      if (tests.length < batchSize) break
    }
    return erased
  }

  return {
    /**
     * What an erasure would do: the orders found (the first ones listed, all
     * counted), and how many request-log lines, audit entries and receivers'
     * answers hold their data. Changes nothing.
     */
    async preview(organizationId: string, match: CustomerMatch) {
      await deps.flushRequestLog()
      const orders = await customerOrders(organizationId, match)
      const ids = orders.map((o) => o.id)
      const texts = searchedTexts(match, orders)
      let requestLines = 0
      let auditEntries = 0
      let answers = 0
      let events = 0
      for (const part of chunks(ids, EXPORT_CHUNK)) {
        const entries = await auditEntriesOf(db, organizationId, part)
        auditEntries += entries.filter(
          (e) => JSON.stringify(e.details) !== JSON.stringify(scrubDetails(e.details, texts, true)),
        ).length
        answers += await countAnswersOfOrders(db, part)
        events += await countEventsOf(db, part)
        requestLines += await countBodiesToErase(db, organizationId, part, [])
      }
      requestLines += await countBodiesToErase(db, organizationId, [], texts)
      return {
        searched_by: searchedBy(match),
        orders: {
          total: orders.length,
          live: orders.filter((o) => o.environment === 'live').length,
          test: orders.filter((o) => o.environment === 'test').length,
          finished: orders.filter(isFinished).length,
          already_erased: orders.filter((o) => o.erased_at !== null).length,
          first: orders.slice(0, PREVIEW_ORDERS).map((o) => ({
            id: o.id,
            external_order_id: o.external_order_id,
            environment: o.environment,
            created_at: o.created_at.toISOString(),
            customer: { name: o.customer_name, email: o.customer_email, phone: o.customer_phone },
            production_status: o.production_status,
            finished: isFinished(o),
            erased_at: o.erased_at?.toISOString() ?? null,
          })),
        },
        request_log_lines: requestLines,
        audit_entries: auditEntries,
        webhook_answers: answers,
        events_kept: events,
      }
    },

    /**
     * Erases the customer: first the request-log bodies that hold what was
     * searched (refused requests name no order), then the orders in batches
     * of ERASURE_BATCH, each in one transaction with every copy of its data.
     * Run again after an interruption, it finishes what was left; what is
     * already erased stays as it is. The audit entry says who, when and how
     * many orders, never whose.
     */
    async erase(
      organizationId: string,
      match: CustomerMatch,
      options: { personalization: PersonalizationChoice },
      actor: AuditActor,
    ): Promise<ErasureCounts & { erasure_id: string }> {
      await deps.flushRequestLog()
      const orders = await customerOrders(organizationId, match)
      const total = noCounts()
      total.request_log_lines = await dropBodiesHolding(db, organizationId, searchedTexts(match, orders))
      add(total, await eraseOrders(organizationId, orders, options.personalization))
      const erasureId = newId()
      await recordAudit(db, clock, {
        organizationId,
        actor,
        action: 'personal_data.erased',
        subject: erasureId,
        details: { searched_by: searchedBy(match), personalization_of: options.personalization, ...total },
      })
      return { erasure_id: erasureId, ...total }
    },

    /**
     * Everything stored about the customer, as one JSON document (the access
     * request): the orders as the operator API shows them, the request-log
     * lines with their bodies, the audit entries about the orders, their
     * events, and the receivers' answers to their deliveries. Audited.
     */
    async export(organizationId: string, match: CustomerMatch, actor: AuditActor) {
      await deps.flushRequestLog()
      const found = await customerOrders(organizationId, match)
      const texts = searchedTexts(match, found)
      const orders: unknown[] = []
      const audit: unknown[] = []
      const events: unknown[] = []
      const deliveries: unknown[] = []
      const requestIds = new Set<string>()
      const requests: unknown[] = []
      const addRequests = (lines: Awaited<ReturnType<typeof requestLinesOf>>) => {
        for (const line of lines) {
          if (requestIds.has(line.id)) continue
          requestIds.add(line.id)
          requests.push({
            id: line.id,
            created_at: line.created_at.toISOString(),
            environment: line.environment,
            method: line.method,
            path: line.path,
            status: line.status,
            request_id: line.request_id,
            order_id: line.order_id,
            request_body: line.request_body,
            response_body: line.response_body,
          })
        }
      }
      for (const part of chunks(
        found.map((o) => o.id),
        EXPORT_CHUNK,
      )) {
        orders.push(...(await deps.orderViews(await orderRows(db, organizationId, part))))
        for (const e of await auditEntriesOf(db, organizationId, part)) {
          audit.push({ ...e, created_at: e.created_at.toISOString() })
        }
        for (const e of await eventsOf(db, part))
          events.push({ ...e, created_at: e.created_at.toISOString() })
        for (const d of await answersOf(db, part))
          deliveries.push({ ...d, created_at: d.created_at.toISOString() })
        addRequests(await requestLinesOf(db, organizationId, part, []))
      }
      addRequests(await requestLinesOf(db, organizationId, [], texts))
      const exportedAt = clock.now()
      await recordAudit(db, clock, {
        organizationId,
        actor,
        action: 'personal_data.exported',
        subject: newId(),
        details: {
          searched_by: searchedBy(match),
          orders: orders.length,
          request_log_lines: requests.length,
        },
      })
      return {
        exported_at: exportedAt.toISOString(),
        organization_id: organizationId,
        searched_by: searchedBy(match),
        orders,
        request_log: requests,
        audit_entries: audit,
        events,
        webhook_deliveries: deliveries,
      }
    },

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

export type PersonalDataService = ReturnType<typeof createPersonalDataService>
