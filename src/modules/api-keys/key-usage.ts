import type { Database } from '../../db/database.ts'
import type { Clock } from '../../lib/clock.ts'
import { recordKeyUse } from './api-keys.repo.ts'

const MINUTE_MS = 60_000
/** Keys remembered at most; past that the map starts again (a key then writes once more, conditionally). */
const MAX_TRACKED = 10_000

/**
 * `api_keys.last_used_at` without a write per request: each process writes a
 * key's use at most once per clock minute, after the request (never on its
 * path), and the write itself only changes a row whose last_used_at is
 * before that minute, so several instances together still change a key's row
 * at most once a minute. The column is therefore the first use within the
 * minute of the latest use: at most a minute behind ("within a minute").
 * It works behind the key cache, which answers authenticate() before this.
 * A failed write is forgotten, so the next use of the key tries again.
 */
export function createKeyUsage(deps: { db: Database; clock: Clock }) {
  const written = new Map<string, number>()
  const inFlight = new Set<Promise<void>>()
  return {
    /** Notes a use of the key; returns at once. */
    used(keyId: string): void {
      const now = deps.clock.now()
      const minute = Math.floor(now.getTime() / MINUTE_MS)
      if (written.get(keyId) === minute) return
      if (written.size >= MAX_TRACKED) written.clear()
      written.set(keyId, minute)
      const write = new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => recordKeyUse(deps.db, keyId, now, new Date(minute * MINUTE_MS)))
        .catch(() => {
          if (written.get(keyId) === minute) written.delete(keyId)
        })
        .finally(() => inFlight.delete(write))
      inFlight.add(write)
    },

    /** Waits for the writes started so far (shutdown and tests). */
    async flush(): Promise<void> {
      while (inFlight.size > 0) await Promise.all([...inFlight])
    },
  }
}

export type KeyUsage = ReturnType<typeof createKeyUsage>
