import {
  actor,
  change,
  ctx,
  DASHBOARD_TAG,
  type DashboardArea,
  viewer,
} from '../../dashboard/route-config.ts'
import {
  ApiKeyAnswer,
  ApiKeyCreated,
  ApiKeyList,
  ApiKeyParams,
  CreateApiKeyBody,
} from './api-keys.dashboard.schemas.ts'
import type { ApiKeyService } from './api-keys.service.ts'

/**
 * API keys: the same service as the operator's /admin/v1 key routes, scoped
 * to the member's organization. The plaintext is in the create answer only.
 */
export const apiKeysDashboardRoutes: DashboardArea<{ apiKeys: ApiKeyService }> = (app, { apiKeys }) => {
  const tags = [DASHBOARD_TAG]

  app.get(
    '/api-keys',
    {
      config: viewer,
      schema: {
        operationId: 'dashboardListApiKeys',
        tags,
        summary: "The organization's API keys, newest first, revoked ones included",
        response: { 200: ApiKeyList },
      },
    },
    async (request) => ({ data: await apiKeys.list(ctx(request).member.organization_id) }),
  )

  app.post(
    '/api-keys',
    {
      config: change('developer'),
      schema: {
        operationId: 'dashboardCreateApiKey',
        tags,
        summary: 'Create an API key: the key is in this answer only',
        body: CreateApiKeyBody,
        response: { 201: ApiKeyCreated },
      },
    },
    async (request, reply) => {
      const { environment, scopes, name, expires_at } = request.body
      const created = await apiKeys.create(
        {
          organizationId: ctx(request).member.organization_id,
          environment,
          scopes,
          name,
          expiresAt: expires_at ? new Date(expires_at) : null,
        },
        actor(request),
      )
      reply.code(201)
      return { data: { api_key: created.apiKey, key: created.key } }
    },
  )

  app.delete(
    '/api-keys/:key_id',
    {
      config: change('developer', false),
      schema: {
        operationId: 'dashboardRevokeApiKey',
        tags,
        summary:
          'Revoke an API key: requests with it fail at once (a second revocation keeps the first time)',
        params: ApiKeyParams,
        response: { 200: ApiKeyAnswer },
      },
    },
    async (request) => ({
      data: {
        api_key: await apiKeys.revoke(request.params.key_id, {
          organizationId: ctx(request).member.organization_id,
          actor: actor(request),
        }),
      },
    }),
  )
}
