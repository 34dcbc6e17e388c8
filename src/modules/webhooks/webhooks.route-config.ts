import type { FastifyRequest } from 'fastify'
import { ctx } from '../../dashboard/route-config.ts'
import type { WebhookScope } from './webhooks.service.ts'

/**
 * What the webhook routes of the sub-features (endpoints/, deliveries/) say
 * alike about who calls them and in which organization and environment.
 */

/** /v1: an API key with the webhooks:manage scope (its organization and environment). */
export const manage = { auth: 'key' as const, scopes: ['webhooks:manage' as const] }

/** The dashboard: the member's organization and the environment of the page's switch (`environment`, test by default). */
export const webhookScope = (request: FastifyRequest): WebhookScope => ({
  organizationId: ctx(request).member.organization_id,
  environment: (request.query as { environment?: 'test' | 'live' }).environment ?? 'test',
})
