import {
  DASHBOARD_TAG,
  type DashboardArea,
  opActor,
  operatorChange,
  organizationRead,
} from '../../dashboard/route-config.ts'
import type { ErrorCode } from '../../http/errors.ts'
import { OrgKeyParams } from '../organizations/organizations.console.schemas.ts'
import type { OrganizationService } from '../organizations/organizations.service.ts'
import { ApiKeyAnswer, ApiKeyList } from './api-keys.dashboard.schemas.ts'
import type { ApiKeyService } from './api-keys.service.ts'

/**
 * An organization's API keys in the operator console: listed, and revoked.
 */
export const apiKeysConsoleRoutes: DashboardArea<{
  apiKeys: ApiKeyService
  organizations: OrganizationService
}> = (app, { apiKeys, organizations }) => {
  const tags = [DASHBOARD_TAG]
  const notFound: ErrorCode[] = ['not_found']

  app.get(
    '/operator/organizations/:org_id/api-keys',
    organizationRead({
      operationId: 'dashboardOperatorListApiKeys',
      summary: "An organization's API keys, revoked ones too",
      response: { 200: ApiKeyList },
    }),
    async (request) => ({ data: await apiKeys.list(request.params.org_id) }),
  )

  app.delete(
    '/operator/organizations/:org_id/api-keys/:key_id',
    {
      config: { ...operatorChange(false), errors: notFound },
      schema: {
        operationId: 'dashboardOperatorRevokeApiKey',
        tags,
        summary: "Revoke one of the organization's keys",
        params: OrgKeyParams,
        response: { 200: ApiKeyAnswer },
      },
    },
    async (request) => {
      const organization = await organizations.require(request.params.org_id)
      const api_key = await apiKeys.revoke(request.params.key_id, {
        organizationId: organization.id,
        actor: opActor(request),
      })
      return { data: { api_key } }
    },
  )
}
