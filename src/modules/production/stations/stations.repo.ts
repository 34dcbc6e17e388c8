import type { Database } from '../../../db/database.ts'

/** The floor's named stations (migration 0039); an archived one keeps its name in the audit log only. */

const COLUMNS = ['id', 'name', 'created_at', 'updated_at'] as const

export async function listStations(db: Database) {
  return db.selectFrom('stations').select(COLUMNS).where('archived_at', 'is', null).orderBy('name').execute()
}

export async function findStation(db: Database, id: string) {
  return db
    .selectFrom('stations')
    .select(COLUMNS)
    .where('id', '=', id)
    .where('archived_at', 'is', null)
    .executeTakeFirst()
}
export type StationRow = NonNullable<Awaited<ReturnType<typeof findStation>>>

/** A new station; false when a station of this name (any case) exists. */
export async function insertStation(
  db: Database,
  row: { id: string; name: string; at: Date },
): Promise<boolean> {
  const inserted = await db
    .insertInto('stations')
    .values({ id: row.id, name: row.name, created_at: row.at, updated_at: row.at })
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .execute()
  return inserted.length === 1
}

/** Renames a station; undefined when unknown, false when the name is taken. */
export async function renameStation(db: Database, id: string, name: string, at: Date) {
  const taken = await db
    .selectFrom('stations')
    .select('id')
    .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()))
    .where('archived_at', 'is', null)
    .where('id', '!=', id)
    .executeTakeFirst()
  if (taken) return false
  const updated = await db
    .updateTable('stations')
    .set({ name, updated_at: at })
    .where('id', '=', id)
    .where('archived_at', 'is', null)
    .executeTakeFirst()
  return Number(updated.numUpdatedRows) === 1 ? true : undefined
}

export async function archiveStation(db: Database, id: string, at: Date) {
  return db
    .updateTable('stations')
    .set({ archived_at: at, updated_at: at })
    .where('id', '=', id)
    .where('archived_at', 'is', null)
    .returning(COLUMNS)
    .executeTakeFirst()
}
