import { sql } from 'kysely'
import type { Database } from '../../db/database.ts'

/** The uploads' names become `erased` with their extension: a file's name often names its person. */
export async function eraseFileNames(trx: Database, uploadIds: string[]) {
  if (uploadIds.length === 0) return
  await sql`
    update uploads set filename = 'erased' || coalesce(lower(substring(filename from '\\.[A-Za-z0-9]{1,10}$')), '')
    where id = any(${uploadIds}::uuid[]) and filename not like 'erased%'`.execute(trx)
}
