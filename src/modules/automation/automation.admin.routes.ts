import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { OrgParams } from '../../http/admin-route-config.ts'
import type { OrganizationLookup } from '../organizations/organizations.service.ts'
import { RuleList } from './automation.dashboard.schemas.ts'
import type { AutomationService } from './automation.service.ts'
import { ruleList } from './automation.views.ts'

/**
 * /admin/v1: an organization's automation rules, as its Automation page lists
 * them. Operators read them; owners and developers change them in the dashboard.
 */
export function automationAdminRoutes(deps: {
  automation: AutomationService
  organizations: OrganizationLookup
}) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
    app.get(
      '/organizations/:org_id/automation-rules',
      {
        config: { auth: 'operator', errors: ['not_found'] },
        schema: { params: OrgParams, response: { 200: RuleList } },
      },
      async (request) => {
        const organization = await deps.organizations.require(request.params.org_id)
        return { data: ruleList(await deps.automation.list(organization.id)) }
      },
    )
  }
}
