import type { Database } from '../../db/database.ts'
import type { ApiKeyRow } from '../../db/schema.ts'

export async function insertApiKey(db: Database, row: ApiKeyRow): Promise<void> {
  await db.insertInto('api_keys').values(row).execute()
}

export async function findKeyWithOrganization(db: Database, keyHash: string) {
  return db
    .selectFrom('api_keys')
    .innerJoin('organizations', 'organizations.id', 'api_keys.organization_id')
    .select([
      'api_keys.id',
      'api_keys.key_hash',
      'api_keys.key_prefix',
      'api_keys.organization_id',
      'api_keys.environment',
      'api_keys.scopes',
      'api_keys.expires_at',
      'api_keys.revoked_at',
      'organizations.name as organization_name',
    ])
    .where('api_keys.key_hash', '=', keyHash)
    .executeTakeFirst()
}

/** Whether the key exists and is not revoked. */
export async function keyNotRevoked(db: Database, id: string): Promise<boolean> {
  const row = await db.selectFrom('api_keys').select('revoked_at').where('id', '=', id).executeTakeFirst()
  return row !== undefined && row.revoked_at === null
}

export async function listKeys(db: Database, organizationId: string): Promise<ApiKeyRow[]> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .orderBy('id', 'desc')
    .execute()
}

/**
 * Sets revoked_at once: the row when this call revoked it, else undefined
 * (unknown, of another organization, or revoked before).
 */
export async function revokeKey(
  db: Database,
  keyId: string,
  at: Date,
  organizationId?: string,
): Promise<ApiKeyRow | undefined> {
  let query = db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
  if (organizationId !== undefined) query = query.where('organization_id', '=', organizationId)
  return query.returningAll().executeTakeFirst()
}

export async function findKey(
  db: Database,
  keyId: string,
  organizationId?: string,
): Promise<ApiKeyRow | undefined> {
  let query = db.selectFrom('api_keys').selectAll().where('id', '=', keyId)
  if (organizationId !== undefined) query = query.where('organization_id', '=', organizationId)
  return query.executeTakeFirst()
}

/**
 * Sets last_used_at unless it is already in the minute that starts at
 * `minuteStart` (another instance wrote it): at most one row change per key
 * per minute, however many instances.
 */
export async function recordKeyUse(db: Database, keyId: string, at: Date, minuteStart: Date): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ last_used_at: at })
    .where('id', '=', keyId)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', minuteStart)]))
    .execute()
}
