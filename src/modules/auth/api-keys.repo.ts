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

export async function listKeys(db: Database, organizationId: string): Promise<ApiKeyRow[]> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .orderBy('id', 'desc')
    .execute()
}

/** Sets revoked_at once; a second revocation keeps the first time. */
export async function revokeKey(db: Database, keyId: string, at: Date): Promise<ApiKeyRow | undefined> {
  await db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .execute()
  return db.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirst()
}
