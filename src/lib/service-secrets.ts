import type { Database } from '../db/database.ts'
import { randomBase62 } from './secrets.ts'

/**
 * A random secret shared by every instance of one deployment, created by the
 * first instance that asks for it and kept in the database.
 */
export async function serviceSecret(db: Database, name: string): Promise<string> {
  await db
    .insertInto('service_secrets')
    .values({ name, value: randomBase62(43), created_at: new Date() })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute()
  const row = await db
    .selectFrom('service_secrets')
    .select('value')
    .where('name', '=', name)
    .executeTakeFirstOrThrow()
  return row.value
}
