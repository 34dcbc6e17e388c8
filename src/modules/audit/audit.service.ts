import type { Database } from '../../db/database.ts'
import { AppError } from '../../http/errors.ts'
import { badCursor, keysetPage, type Page } from '../../http/pagination.ts'
import type { Clock } from '../../lib/clock.ts'
import { csvLine } from '../../lib/csv.ts'
import { isUuid, newId } from '../../lib/ids.ts'
import { AUDIT_ACTIONS, type AuditAction } from './audit.actions.ts'
import { type AuditFilter, insertAuditEntry, listAuditEntries, listSubjectEntries } from './audit.repo.ts'
import { auditSentence } from './audit.sentences.ts'

export { AUDIT_ACTIONS, type AuditAction }

export interface AuditActor {
  accountId: string | null
  /** An account's email, or `operator token`. */
  label: string
  address: string | null
  /** An operator (account or token): the entry is in the platform-wide log. */
  operator?: boolean
  /** The floor's station the operator acted at: named in each entry's details. */
  station?: { id: string; name: string }
}

/** The shared OPERATOR_TOKEN (/admin/v1 and the CLI): no account behind it. */
export const OPERATOR_TOKEN_ACTOR: AuditActor = {
  accountId: null,
  label: 'operator token',
  address: null,
  operator: true,
}

/** An entry of the platform-wide log: with the organization it concerns. */
export interface OperatorAuditEntryView extends AuditEntryView {
  organization_id: string | null
}

export interface AuditEntryView {
  id: string
  actor: string
  action: string
  /** The entry as a sentence (audit.sentences.ts). */
  summary: string
  subject: string
  details: Record<string, unknown>
  address: string | null
  created_at: string
}

/**
 * Records one entry: called by the service that makes the change, with its
 * transaction, so the entry exists exactly when the change does.
 */
export async function recordAudit(
  trx: Database,
  clock: Clock,
  entry: {
    /** null: a change of the platform itself (operators), in the platform-wide log only. */
    organizationId: string | null
    actor: AuditActor
    action: AuditAction
    subject: string
    details?: Record<string, unknown>
  },
): Promise<void> {
  await insertAuditEntry(trx, {
    id: newId(),
    organization_id: entry.organizationId,
    actor_account_id: entry.actor.accountId,
    actor: entry.actor.label,
    by_operator: entry.actor.operator ?? false,
    action: entry.action,
    subject: entry.subject,
    details: entry.actor.station
      ? { ...entry.details, station_id: entry.actor.station.id, station: entry.actor.station.name }
      : (entry.details ?? {}),
    address: entry.actor.address,
    created_at: clock.now(),
  })
}

/** The logs' cursor is the last entry's id (ids are time-ordered UUIDv7). */
function checkCursor(cursor: string | undefined): void {
  if (cursor !== undefined && !isUuid(cursor)) throw badCursor('cursor is not one this list returned.')
}

/** The query's filter, checked: from before to (422 on `to` otherwise). */
export function auditFilter(query: {
  actor?: string
  action?: string
  from?: string
  to?: string
}): AuditFilter {
  const from = query.from === undefined ? undefined : new Date(query.from)
  const to = query.to === undefined ? undefined : new Date(query.to)
  if (from && to && from.getTime() >= to.getTime()) {
    throw AppError.validation([{ code: 'too_small', field: 'to', message: 'to must be later than from.' }])
  }
  return { actor: query.actor, action: query.action, from, to }
}

/**
 * What the order page's history shows of an order: its changes,
 * cancellations and releases (by the order's id), and what production did
 * (by its production order's and jobs' ids); as audit_log_order_history_idx
 * holds them (migration 0040).
 */
const ORDER_HISTORY_ACTIONS: AuditAction[] = [
  'order.changed',
  'order.cancelled',
  'order.released',
  'production.status_set',
  'production.job_completed',
  'production.partner_set',
]

export function createAuditService(deps: { db: Database }) {
  return {
    /**
     * The order's changes and cancellations (members' and operators'), and
     * its production's changes (`production`: its production order's and
     * jobs' ids), oldest first.
     */
    async orderHistory(organizationId: string, orderId: string, production: string[] = []) {
      const rows = await listSubjectEntries(deps.db, {
        organizationId,
        subjects: [orderId, ...production],
        actions: ORDER_HISTORY_ACTIONS,
      })
      return rows.map((r) => ({
        id: r.id,
        action: r.action,
        actor: r.actor,
        by_operator: r.by_operator,
        changed: Array.isArray(r.details.changed) ? (r.details.changed as string[]) : ['status'],
        // The audit log's sentence; an operator is named as one on the member's order page.
        summary: auditSentence({
          actor: r.by_operator ? `The operator ${r.actor}` : r.actor,
          action: r.action,
          subject: r.subject,
          details: r.details,
        }),
        details: r.details,
        created_at: r.created_at.toISOString(),
      }))
    },

    /** One page of what operators did, across organizations, newest first. */
    async listOperatorActions(
      filter: AuditFilter,
      options: { cursor: string | undefined; limit: number },
    ): Promise<Page<OperatorAuditEntryView>> {
      checkCursor(options.cursor)
      const rows = await listAuditEntries(deps.db, { operators: true }, filter, {
        before: options.cursor,
        limit: options.limit,
      })
      return keysetPage(rows, options.limit, { cursor: (r) => r.id, view: operatorView })
    },

    /** One page of the organization's log, newest first. */
    async list(
      organizationId: string,
      filter: AuditFilter,
      options: { cursor: string | undefined; limit: number },
    ): Promise<Page<AuditEntryView>> {
      checkCursor(options.cursor)
      const rows = await listAuditEntries(deps.db, { organizationId }, filter, {
        before: options.cursor,
        limit: options.limit,
      })
      return keysetPage(rows, options.limit, { cursor: (r) => r.id, view: entryView })
    },

    /**
     * The filtered log as CSV lines, newest first, read a page at a time so a
     * log of any size streams in constant memory.
     */
    async *csv(scope: { organizationId: string } | { operators: true }, filter: AuditFilter) {
      const operators = !('organizationId' in scope)
      yield csvLine([
        'created_at',
        'actor',
        'action',
        'summary',
        'subject',
        ...(operators ? ['organization_id'] : []),
        'address',
        'details',
        'id',
      ])
      let before: string | undefined
      for (;;) {
        const rows = await listAuditEntries(deps.db, scope, filter, { before, limit: CSV_PAGE })
        const page = rows.slice(0, CSV_PAGE)
        let chunk = ''
        for (const r of page) {
          const v = entryView(r)
          chunk += csvLine([
            v.created_at,
            v.actor,
            v.action,
            v.summary,
            v.subject,
            ...(operators ? [r.organization_id] : []),
            v.address,
            JSON.stringify(v.details),
            v.id,
          ])
        }
        if (chunk) yield chunk
        if (rows.length <= CSV_PAGE) return
        before = page.at(-1)!.id
      }
    },
  }
}

const CSV_PAGE = 500

type AuditRow = Awaited<ReturnType<typeof listAuditEntries>>[number]

function entryView(r: AuditRow): AuditEntryView {
  const base = { actor: r.actor, action: r.action, subject: r.subject, details: r.details }
  return {
    id: r.id,
    ...base,
    summary: auditSentence(base),
    address: r.address,
    created_at: r.created_at.toISOString(),
  }
}

const operatorView = (r: AuditRow): OperatorAuditEntryView => ({
  ...entryView(r),
  organization_id: r.organization_id,
})

export type AuditService = ReturnType<typeof createAuditService>
