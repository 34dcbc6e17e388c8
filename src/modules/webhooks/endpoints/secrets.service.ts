import { AppError } from '../../../http/errors.ts'
import { isUuid } from '../../../lib/ids.ts'
import type { AuditActor } from '../../audit/audit.service.ts'
import type { WebhookContext, WebhookScope } from '../webhooks.context.ts'
import { DEFAULT_ROTATION_GRACE_S } from '../webhooks.schemas.ts'
import { endpointNotFound, endpointView, newSecret } from '../webhooks.views.ts'
import { findEndpoint, lockEndpoint, replaceSecret } from './endpoints.repo.ts'

/** An endpoint's signing secret: rotating it, with a grace period for the previous one. */
export function createSecretService(ctx: WebhookContext) {
  const { db, clock, secretBox, audit } = ctx

  return {
    /**
     * A new secret, returned this once. The current one becomes the previous
     * secret and signs beside the new one for the grace period (0: not at all).
     * An endpoint keeps one previous secret: rotating again during a grace
     * period drops the older one at once.
     */
    async rotateSecret(
      scope: WebhookScope,
      id: string,
      input: { grace_period_seconds?: number | undefined },
      actor?: AuditActor,
    ) {
      if (!isUuid(id)) throw endpointNotFound()
      const grace = input.grace_period_seconds ?? DEFAULT_ROTATION_GRACE_S
      const secret = newSecret()
      const sealed = (await secretBox()).seal(secret)
      const now = clock.now()
      const endsAt = new Date(now.getTime() + grace * 1000)
      const row = await db.transaction().execute(async (trx) => {
        // Locked, so two rotations at once run one after the other: the second keeps the first's secret as previous.
        const current = await lockEndpoint(trx, scope, id)
        if (!current) throw endpointNotFound(scope, await findEndpoint(trx, id))
        if (!current.is_active) {
          throw AppError.validation(
            [
              {
                code: 'invalid_format',
                field: 'id',
                message: 'The endpoint is disabled; register a new one.',
              },
            ],
            'The endpoint is disabled; its secret cannot be rotated.',
          )
        }
        const rotated = await replaceSecret(trx, current.id, {
          secret_encrypted: sealed,
          previous_secret_encrypted: grace > 0 ? current.secret_encrypted : null,
          previous_secret_expires_at: grace > 0 ? endsAt : null,
        })
        await audit(trx, actor, scope, 'webhook_endpoint.secret_rotated', current, {
          grace_period_seconds: grace,
          previous_secret_expires_at: endsAt.toISOString(),
        })
        return rotated
      })
      return { endpoint: endpointView(row, now), secret, previous_secret_expires_at: endsAt.toISOString() }
    },
  }
}
