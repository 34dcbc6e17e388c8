import { DASHBOARD_TAG, type DashboardArea, operatorOnly } from '../../dashboard/route-config.ts'
import { OrgParams } from '../organizations/organizations.console.schemas.ts'
import type { OrganizationLookup } from '../organizations/organizations.service.ts'
import { RuleList } from './automation.dashboard.schemas.ts'
import type { AutomationService } from './automation.service.ts'
import { ruleList } from './automation.views.ts'

/** The operator console reads an organization's automation rules (its members change them). */
export const automationConsoleRoutes: DashboardArea<{
  automation: AutomationService
  organizations: OrganizationLookup
}> = (app, { automation, organizations }) => {
  app.get(
    '/operator/organizations/:org_id/automation-rules',
    {
      config: { ...operatorOnly, errors: ['not_found'] },
      schema: {
        operationId: 'dashboardOperatorListAutomationRules',
        tags: [DASHBOARD_TAG],
        summary: "An organization's automation rules, in the order they run",
        params: OrgParams,
        response: { 200: RuleList },
      },
    },
    async (request) => {
      const organization = await organizations.require(request.params.org_id)
      return { data: ruleList(await automation.list(organization.id)) }
    },
  )
}
