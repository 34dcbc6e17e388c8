import type { Database } from '../../db/database.ts'
import type { OrganizationRow } from '../../db/schema.ts'
import { AppError } from '../../http/errors.ts'
import type { Clock } from '../../lib/clock.ts'
import { isUuid, newId } from '../../lib/ids.ts'
import { type AuditActor, recordAudit } from '../audit/audit.service.ts'
import { findOrganization, insertOrganization, listOrganizations } from './organizations.repo.ts'

export interface OrganizationView {
  id: string
  name: string
  created_at: string
}

const view = (r: Pick<OrganizationRow, 'id' | 'name' | 'created_at'>): OrganizationView => ({
  id: r.id,
  name: r.name,
  created_at: r.created_at.toISOString(),
})

export function createOrganizationService(deps: { db: Database; clock: Clock }) {
  const { db, clock } = deps
  return {
    /** A new organization; an operator's creation is in the audit log, written with it. */
    async create(name: string, actor?: AuditActor): Promise<OrganizationView> {
      const row = { id: newId(), name, created_at: clock.now() }
      await db.transaction().execute(async (trx) => {
        await insertOrganization(trx, row)
        if (actor) {
          await recordAudit(trx, clock, {
            organizationId: row.id,
            actor,
            action: 'organization.created',
            subject: name,
          })
        }
      })
      return view(row)
    },

    async list(): Promise<OrganizationView[]> {
      return (await listOrganizations(db)).map(view)
    },

    /** The organization, or 404 not_found. */
    async require(id: string): Promise<OrganizationView> {
      const row = isUuid(id) ? await findOrganization(db, id) : undefined
      if (!row) throw new AppError('not_found', { message: 'No organization with this id.' })
      return view(row)
    },
  }
}

export type OrganizationService = ReturnType<typeof createOrganizationService>

/** What other services need of organizations: the operator API names them by id, unchecked. */
export type OrganizationLookup = Pick<OrganizationService, 'require'>
