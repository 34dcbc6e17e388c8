import type { Database } from '../../db/database.ts'
import { AppError } from '../../http/errors.ts'
import type { Clock } from '../../lib/clock.ts'
import { isUuid, newId } from '../../lib/ids.ts'

export interface OrganizationView {
  id: string
  name: string
  created_at: string
}

export function createOrganizationService(deps: { db: Database; clock: Clock }) {
  const { db, clock } = deps
  const view = (r: { id: string; name: string; created_at: Date }): OrganizationView => ({
    id: r.id,
    name: r.name,
    created_at: r.created_at.toISOString(),
  })
  return {
    async create(name: string): Promise<OrganizationView> {
      const row = { id: newId(), name, created_at: clock.now() }
      await db.insertInto('organizations').values(row).execute()
      return view(row)
    },

    async list(): Promise<OrganizationView[]> {
      const rows = await db.selectFrom('organizations').selectAll().orderBy('id').execute()
      return rows.map(view)
    },

    /** The organization, or 404 not_found. */
    async require(id: string): Promise<OrganizationView> {
      const row = isUuid(id)
        ? await db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst()
        : undefined
      if (!row) throw new AppError('not_found', { message: 'No organization with this id.' })
      return view(row)
    },
  }
}

export type OrganizationService = ReturnType<typeof createOrganizationService>
