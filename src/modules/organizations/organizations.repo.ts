import type { Insertable } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { OrganizationRow, OrganizationTable } from '../../db/schema.ts'

export async function insertOrganization(db: Database, row: Insertable<OrganizationTable>): Promise<void> {
  await db.insertInto('organizations').values(row).execute()
}

export async function listOrganizations(db: Database): Promise<OrganizationRow[]> {
  return db.selectFrom('organizations').selectAll().orderBy('id').execute()
}

export async function findOrganization(db: Database, id: string): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst()
}
