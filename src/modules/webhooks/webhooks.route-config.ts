import type { FastifyRequest } from 'fastify'
import { ctx, DASHBOARD_TAG } from '../../dashboard/route-config.ts'
import { EnvironmentQuery } from './webhooks.dashboard.schemas.ts'
import type { WebhookScope } from './webhooks.service.ts'

/**
 * What the webhook routes of the sub-features (endpoints/, deliveries/) say
 * alike about who calls them and in which organization and environment.
 */

/** /v1: an API key with the webhooks:manage scope (its organization and environment). */
export const manage = { auth: 'key' as const, scopes: ['webhooks:manage' as const] }

/**
 * The dashboard: a webhook route's schema, the route's own part in the
 * dashboard's tag with the `environment` query parameter that webhookScope reads.
 */
export const scoped = <Schema extends object>(schema: Schema) => ({
  tags: [DASHBOARD_TAG],
  querystring: EnvironmentQuery,
  ...schema,
})

/** The dashboard: the member's organization and the environment of the page's switch (`environment`, test by default). */
export const webhookScope = (request: FastifyRequest): WebhookScope => ({
  organizationId: ctx(request).member.organization_id,
  environment: (request.query as { environment?: 'test' | 'live' }).environment ?? 'test',
})
