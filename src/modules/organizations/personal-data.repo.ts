import type { Transaction } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { DB } from '../../db/schema.ts'

/** How long an organization keeps each kind of data (migration 0041). */
export interface Retention {
  request_body_retention_days: number
  webhook_answer_retention_days: number
  personal_data_retention_days: number | null
}

const RETENTION = [
  'request_body_retention_days',
  'webhook_answer_retention_days',
  'personal_data_retention_days',
] as const

export async function findRetention(db: Database, organizationId: string): Promise<Retention | undefined> {
  return db.selectFrom('organizations').select(RETENTION).where('id', '=', organizationId).executeTakeFirst()
}

/** The organization's row locked for a change of its retention: the values before it. */
export async function lockRetention(
  trx: Transaction<DB>,
  organizationId: string,
): Promise<Retention | undefined> {
  return trx
    .selectFrom('organizations')
    .select(RETENTION)
    .where('id', '=', organizationId)
    .forUpdate()
    .executeTakeFirst()
}

export async function updateRetention(
  trx: Database,
  organizationId: string,
  retention: Retention,
): Promise<void> {
  await trx.updateTable('organizations').set(retention).where('id', '=', organizationId).execute()
}

/** Every organization with its retention and how far its prunes have come (the background's list). */
export async function retentionOfAll(db: Database) {
  return db
    .selectFrom('organizations')
    .select([...RETENTION, 'id', 'personal_data_pruned_through', 'webhook_answers_pruned_through'])
    .orderBy('id')
    .execute()
}

export async function setPrunedThrough(
  trx: Database,
  organizationId: string,
  column: 'personal_data_pruned_through' | 'webhook_answers_pruned_through',
  through: Date | null,
): Promise<void> {
  await trx
    .updateTable('organizations')
    .set({ [column]: through })
    .where('id', '=', organizationId)
    .execute()
}
