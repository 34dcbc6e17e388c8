import type { Database } from '../../db/database.ts'
import { badCursor, keysetPage, type Page } from '../../http/pagination.ts'
import type { Clock } from '../../lib/clock.ts'
import { isUuid, newId } from '../../lib/ids.ts'
import {
  insertAuditEntry,
  listAuditEntries,
  listOperatorAuditEntries,
  listSubjectEntries,
} from './audit.repo.ts'

/** What the audit log records. */
export const AUDIT_ACTIONS = [
  'member.signed_in',
  'member.invited',
  'member.joined',
  'member.role_changed',
  'member.removed',
  'member.invitation_revoked',
  'member.password_changed',
  // What operators do (an operator account or the operator token): the platform-wide log.
  'operator.invited',
  'operator.invitation_revoked',
  'operator.removed',
  'operator.joined',
  'operator.signed_in',
  'operator.password_changed',
  'organization.created',
  'api_key.created',
  'api_key.revoked',
  'product.created',
  'shop_order.created',
  'production.status_set',
  'production.partner_set',
  'production.job_completed',
  'order.cancelled',
  'order.changed',
  'order.released',
  'automation_rule.created',
  'automation_rule.updated',
  'automation_rule.deleted',
  'automation_rule.reordered',
  'webhook_endpoint.created',
  'webhook_endpoint.updated',
  'webhook_endpoint.deleted',
  'webhook_endpoint.secret_rotated',
  'webhook_endpoint.replayed',
  'webhook_delivery.redelivered',
] as const
export type AuditAction = (typeof AUDIT_ACTIONS)[number]

export interface AuditActor {
  accountId: string | null
  /** An account's email, or `operator token`. */
  label: string
  address: string | null
  /** An operator (account or token): the entry is in the platform-wide log. */
  operator?: boolean
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
    details: entry.details ?? {},
    address: entry.actor.address,
    created_at: clock.now(),
  })
}

/** The logs' cursor is the last entry's id (ids are time-ordered UUIDv7). */
function checkCursor(cursor: string | undefined): void {
  if (cursor !== undefined && !isUuid(cursor)) throw badCursor('cursor is not one this list returned.')
}

/** What the order page's history shows of an order: its changes and cancellations. */
const ORDER_HISTORY_ACTIONS: AuditAction[] = ['order.changed', 'order.cancelled', 'order.released']

export function createAuditService(deps: { db: Database }) {
  return {
    /** The order's changes and cancellations (members' and operators'), oldest first. */
    async orderHistory(organizationId: string, orderId: string) {
      const rows = await listSubjectEntries(deps.db, {
        organizationId,
        subject: orderId,
        actions: ORDER_HISTORY_ACTIONS,
      })
      return rows.map((r) => ({
        id: r.id,
        action: r.action,
        actor: r.actor,
        by_operator: r.by_operator,
        changed: Array.isArray(r.details.changed) ? (r.details.changed as string[]) : ['status'],
        details: r.details,
        created_at: r.created_at.toISOString(),
      }))
    },

    /** One page of what operators did, across organizations, newest first. */
    async listOperatorActions(options: {
      cursor: string | undefined
      limit: number
    }): Promise<Page<OperatorAuditEntryView>> {
      checkCursor(options.cursor)
      const rows = await listOperatorAuditEntries(deps.db, { before: options.cursor, limit: options.limit })
      return keysetPage(rows, options.limit, {
        cursor: (r) => r.id,
        view: (r) => ({
          id: r.id,
          organization_id: r.organization_id,
          actor: r.actor,
          action: r.action,
          subject: r.subject,
          details: r.details,
          address: r.address,
          created_at: r.created_at.toISOString(),
        }),
      })
    },

    /** One page of the organization's log, newest first. */
    async list(
      organizationId: string,
      options: { cursor: string | undefined; limit: number },
    ): Promise<Page<AuditEntryView>> {
      checkCursor(options.cursor)
      const rows = await listAuditEntries(deps.db, organizationId, {
        before: options.cursor,
        limit: options.limit,
      })
      return keysetPage(rows, options.limit, {
        cursor: (r) => r.id,
        view: (r) => ({
          id: r.id,
          actor: r.actor,
          action: r.action,
          subject: r.subject,
          details: r.details,
          address: r.address,
          created_at: r.created_at.toISOString(),
        }),
      })
    },
  }
}

export type AuditService = ReturnType<typeof createAuditService>
