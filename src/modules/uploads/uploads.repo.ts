import { sql, type Transaction } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { DB, UploadRow } from '../../db/schema.ts'

export async function insertUpload(db: Database, row: UploadRow): Promise<void> {
  await db.insertInto('uploads').values(row).execute()
}

export async function findUpload(db: Database, id: string): Promise<UploadRow | undefined> {
  return db.selectFrom('uploads').selectAll().where('id', '=', id).executeTakeFirst()
}

export async function findUploads(db: Database, ids: string[]): Promise<UploadRow[]> {
  return db.selectFrom('uploads').selectAll().where('id', 'in', ids).execute()
}

/** Name, type and size of uploads, for the orders that reference them. */
export async function findUploadDetails(db: Database, ids: string[]) {
  return db
    .selectFrom('uploads')
    .select(['id', 'filename', 'content_type', 'size_bytes'])
    .where('id', 'in', ids)
    .execute()
}

/** Locks an upload while a PUT switches it to new bytes. */
export async function lockUpload(trx: Transaction<DB>, id: string) {
  return trx
    .selectFrom('uploads')
    .select(['storage_key', 'referenced_at', 'expired_at', 'stored_at'])
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst()
}

export async function setStoredObject(
  db: Database,
  id: string,
  stored: { key: string; size: number; at: Date },
): Promise<void> {
  await db
    .updateTable('uploads')
    .set({ storage_key: stored.key, size_bytes: stored.size, stored_at: stored.at })
    .where('id', '=', id)
    .execute()
}

export interface ReferencedFile {
  id: string
  /** The key the acceptance check read; the row changes only if it still holds it. */
  storageKey: string
  contentType: string
  size: number
  /** A new object holding the bytes the order keeps, if any. */
  newKey: string | undefined
}

/**
 * Marks files referenced by an order (permanent from now on), in one
 * statement for all of them. Each row changes only if it still holds the bytes
 * that were checked and is neither referenced nor expired; resolves to the ids
 * of the rows that changed.
 */
export async function markReferenced(db: Database, files: ReferencedFile[], at: Date): Promise<string[]> {
  const result = await sql<{ id: string }>`
    update uploads u
    set referenced_at = ${at}::timestamptz,
        content_type = v.content_type,
        size_bytes = v.size_bytes,
        stored_at = coalesce(u.stored_at, ${at}::timestamptz),
        storage_key = coalesce(v.new_key, u.storage_key)
    from unnest(${files.map((f) => f.id)}::uuid[], ${files.map((f) => f.storageKey)}::text[],
                ${files.map((f) => f.contentType)}::text[], ${files.map((f) => f.size)}::bigint[],
                ${files.map((f) => f.newKey ?? null)}::text[])
      as v(id, storage_key, content_type, size_bytes, new_key)
    where u.id = v.id and u.storage_key = v.storage_key
      and u.referenced_at is null and u.expired_at is null
    returning u.id`.execute(db)
  return result.rows.map((r) => r.id)
}

/** Marks up to `batch` unreferenced uploads stored (or created) before the cutoff as expired. */
export async function markExpired(db: Database, cutoff: Date, at: Date, batch: number) {
  return db
    .updateTable('uploads')
    .set({ expired_at: at })
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('uploads')
        .select('id')
        .where('referenced_at', 'is', null)
        .where('expired_at', 'is', null)
        .where((w) => w(w.fn.coalesce('stored_at', 'created_at'), '<=', cutoff))
        .limit(batch),
    )
    .returning(['id', 'storage_key'])
    .execute()
}

/** Expired uploads still there: their bytes may have outlived a crashed sweep. */
export async function findExpired(db: Database, batch: number) {
  return db
    .selectFrom('uploads')
    .select(['id', 'storage_key'])
    .where('expired_at', 'is not', null)
    .where('referenced_at', 'is', null)
    .limit(batch)
    .execute()
}

export async function deleteUnreferenced(db: Database, ids: string[]): Promise<void> {
  if (ids.length === 0) return
  await db.deleteFrom('uploads').where('id', 'in', ids).where('referenced_at', 'is', null).execute()
}
