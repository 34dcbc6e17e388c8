import type { Database } from '../../db/database.ts'
import type { Clock } from '../../lib/clock.ts'
import type { FileStorage } from './storage/storage.ts'
import { deleteUnreferenced, findExpired, markExpired } from './uploads.repo.ts'

/**
 * Removes unreferenced uploads older than the retention: marks them expired
 * (so no order can take them any more), deletes their bytes, then the rows.
 * Safe to run on every instance at once. Resolves to the number newly expired.
 */
export async function sweepUploads(
  deps: { db: Database; clock: Clock; storage: FileStorage; retentionMs: number },
  batch = 500,
): Promise<number> {
  const { db, clock, storage } = deps
  const cutoff = new Date(clock.now().getTime() - deps.retentionMs)
  const marked = await markExpired(db, cutoff, clock.now(), batch)
  // Rows marked earlier whose bytes a crashed sweep may have left behind.
  const leftovers = await findExpired(db, batch)
  const all = new Map([...leftovers, ...marked].map((r) => [r.id, r]))
  // A slot never PUT has no object: deleting it is a no-op.
  for (const r of all.values()) await storage.delete(r.storage_key)
  await deleteUnreferenced(db, [...all.keys()])
  return marked.length
}
