import type { Database } from '../../db/database.ts'
import type { ApiKeyRow, Environment } from '../../db/schema.ts'
import { AppError } from '../../http/errors.ts'
import type { Clock } from '../../lib/clock.ts'
import { isUuid, newId } from '../../lib/ids.ts'
import { randomBase62, sha256Hex } from '../../lib/secrets.ts'
import { type AuditActor, OPERATOR_TOKEN_ACTOR, recordAudit } from '../audit/audit.service.ts'
import type { OrganizationLookup } from '../organizations/organizations.service.ts'
import { findKey, insertApiKey, listKeys, revokeKey } from './api-keys.repo.ts'
import { createKeyLookup } from './key-lookup.ts'

/** 43 base62 characters carry 256 bits. */
const SECRET_LENGTH = 43
/** Visible characters of the random part kept in key_prefix, to tell keys apart. */
const PREFIX_CHARS = 8

export interface ApiKeyView {
  id: string
  organization_id: string
  environment: Environment
  scopes: string[]
  key_prefix: string
  name: string | null
  expires_at: string | null
  revoked_at: string | null
  created_at: string
  /** A member's email, or `operator`. */
  created_by: string
  /** The first use in the minute of the latest use: at most a minute behind. */
  last_used_at: string | null
}

export function apiKeyRowToView(row: ApiKeyRow): ApiKeyView {
  return {
    id: row.id,
    organization_id: row.organization_id,
    environment: row.environment,
    scopes: row.scopes,
    key_prefix: row.key_prefix,
    name: row.name,
    expires_at: row.expires_at?.toISOString() ?? null,
    revoked_at: row.revoked_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    created_by: row.created_by,
    last_used_at: row.last_used_at?.toISOString() ?? null,
  }
}

export function createApiKeyService(deps: {
  db: Database
  clock: Clock
  /**
   * This process is the only writer of api_keys (the embedded database): a
   * revocation clears the key from memory here, and no other instance could
   * revoke it behind this one's back, so a key found in memory is confirmed.
   * Otherwise a key from memory is handed out unconfirmed: the request checks
   * its revocation in the database (see Principal.confirmed).
   */
  cacheKeys?: boolean
  organizations: OrganizationLookup
}) {
  const { db, clock } = deps
  const lookup = createKeyLookup(deps)
  return {
    /**
     * Creates a key of an existing organization (else 404); the plaintext is
     * returned here once and never stored. The audit entry (without the key)
     * is written with it; the actor is the operator unless a member is named.
     */
    async create(
      input: {
        organizationId: string
        environment: Environment
        scopes: string[]
        name?: string | null | undefined
        expiresAt?: Date | null | undefined
      },
      actor: AuditActor = OPERATOR_TOKEN_ACTOR,
    ): Promise<{ apiKey: ApiKeyView; key: string }> {
      const organization = await deps.organizations.require(input.organizationId)
      const key = `svc_${input.environment}_${randomBase62(SECRET_LENGTH)}`
      const row: ApiKeyRow = {
        id: newId(),
        organization_id: organization.id,
        environment: input.environment,
        scopes: [...new Set(input.scopes)],
        key_prefix: key.slice(0, `svc_${input.environment}_`.length + PREFIX_CHARS),
        key_hash: sha256Hex(key),
        name: input.name ?? null,
        expires_at: input.expiresAt ?? null,
        revoked_at: null,
        created_at: clock.now(),
        created_by: actor.label,
        last_used_at: null,
      }
      await db.transaction().execute(async (trx) => {
        await insertApiKey(trx, row)
        await recordAudit(trx, clock, {
          organizationId: row.organization_id,
          actor,
          action: 'api_key.created',
          subject: row.key_prefix,
          details: {
            key_id: row.id,
            environment: row.environment,
            scopes: row.scopes,
            expires_at: row.expires_at?.toISOString() ?? null,
          },
        })
      })
      return { apiKey: apiKeyRowToView(row), key }
    },

    // The lookup of every /v1 request (key-lookup.ts), handed out as it is.
    authenticate: lookup.authenticate,
    confirm: lookup.confirm,
    forget: lookup.forget,

    /** The keys of an existing organization (else 404), newest first, revoked ones too. */
    async list(organizationId: string): Promise<ApiKeyView[]> {
      const organization = await deps.organizations.require(organizationId)
      return (await listKeys(db, organization.id)).map(apiKeyRowToView)
    },

    /**
     * Revokes the key (a second revocation keeps the first time), or 404
     * not_found; with an organization, only that organization's keys. The
     * revocation and its audit entry are one transaction.
     */
    async revoke(
      keyId: string,
      options: { organizationId?: string; actor?: AuditActor } = {},
    ): Promise<ApiKeyView> {
      const row = !isUuid(keyId)
        ? undefined
        : await db.transaction().execute(async (trx) => {
            const revoked = await revokeKey(trx, keyId, clock.now(), options.organizationId)
            if (!revoked) return findKey(trx, keyId, options.organizationId)
            await recordAudit(trx, clock, {
              organizationId: revoked.organization_id,
              actor: options.actor ?? OPERATOR_TOKEN_ACTOR,
              action: 'api_key.revoked',
              subject: revoked.key_prefix,
              details: { key_id: revoked.id, environment: revoked.environment },
            })
            return revoked
          })
      if (!row) throw new AppError('not_found', { message: 'No API key with this id.' })
      lookup.forgetHash(row.key_hash)
      return apiKeyRowToView(row)
    },

    /** Waits for the last_used_at writes under way (shutdown, tests). */
    flushUsage: lookup.flushUsage,
  }
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>
