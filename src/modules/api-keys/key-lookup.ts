import type { Database } from '../../db/database.ts'
import type { Principal } from '../../http/principal.ts'
import type { Clock } from '../../lib/clock.ts'
import { secretsEqual, sha256Hex } from '../../lib/secrets.ts'
import { findKeyWithOrganization, keyNotRevoked } from './api-keys.repo.ts'
import { createKeyUsage } from './key-usage.ts'

const KEY_FORMAT = /^svc_(test|live)_[0-9A-Za-z]{32,128}$/

/**
 * The API key lookup of every /v1 request: keys found are kept in memory by
 * their hash, confirmed against the database when another instance could
 * have revoked them, and their use is counted (key-usage.ts).
 */
export function createKeyLookup(deps: { db: Database; clock: Clock; cacheKeys?: boolean | undefined }) {
  const { db, clock } = deps
  type Found = NonNullable<Awaited<ReturnType<typeof findKeyWithOrganization>>>
  const exact = deps.cacheKeys ?? false
  const cache = new Map<string, Found>()
  const MAX_CACHED = 10_000
  const forget = (keyId: string) => {
    for (const [hash, row] of cache) if (row.id === keyId) cache.delete(hash)
  }
  const usage = createKeyUsage({ db, clock })
  return {
    /**
     * The principal for a presented key, or undefined for every kind of bad key
     * alike (missing, malformed, unknown, revoked, expired): callers answer all
     * of them with the same 401.
     */
    async authenticate(presented: string | undefined): Promise<Principal | undefined> {
      if (!presented || !KEY_FORMAT.test(presented)) return undefined
      const hash = sha256Hex(presented)
      // Only keys that exist are cached; unknown keys always ask the database.
      let row = cache.get(hash)
      const fromMemory = row !== undefined
      if (!row) {
        row = await findKeyWithOrganization(db, hash)
        if (row) {
          if (cache.size >= MAX_CACHED) cache.clear()
          cache.set(hash, row)
        }
      }
      if (!row || !secretsEqual(row.key_hash, hash)) return undefined
      if (row.revoked_at) return undefined
      if (row.expires_at && row.expires_at.getTime() <= clock.now().getTime()) return undefined
      if (!presented.startsWith(`svc_${row.environment}_`)) return undefined
      usage.used(row.id)
      return {
        keyId: row.id,
        keyPrefix: row.key_prefix,
        organizationId: row.organization_id,
        organizationName: row.organization_name,
        environment: row.environment,
        scopes: row.scopes,
        confirmed: exact || !fromMemory,
      }
    },

    async confirm(principal: Pick<Principal, 'keyId' | 'confirmed'>): Promise<boolean> {
      if (principal.confirmed) return true
      const valid = await keyNotRevoked(db, principal.keyId)
      if (!valid) forget(principal.keyId)
      return valid
    },

    /** Drops a key from memory (a statement found it revoked). */
    forget,

    /** Drops the key with this hash from memory (its revocation). */
    forgetHash(hash: string) {
      cache.delete(hash)
    },

    /** Waits for the last_used_at writes under way (shutdown, tests). */
    flushUsage: () => usage.flush(),
  }
}
