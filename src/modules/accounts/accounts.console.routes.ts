import {
  DASHBOARD_TAG,
  type DashboardArea,
  opActor,
  operatorChange,
  organizationRead,
} from '../../dashboard/route-config.ts'
import { OrgParams } from '../organizations/organizations.console.schemas.ts'
import { InvitationCreated, MemberList, OwnerInviteBody } from './accounts.dashboard.schemas.ts'
import type { AccountService } from './accounts.service.ts'

/**
 * The operator console's view of an organization's people: inviting its owner, its members.
 */
export const accountsConsoleRoutes: DashboardArea<{ accounts: AccountService }> = (app, { accounts }) => {
  const tags = [DASHBOARD_TAG]

  app.post(
    '/operator/organizations/:org_id/invitations',
    {
      config: { ...operatorChange(), errors: ['not_found', 'member_exists'] },
      schema: {
        operationId: 'dashboardOperatorInviteOwner',
        tags,
        summary: "Invite an organization's owner: the link is shown once",
        params: OrgParams,
        body: OwnerInviteBody,
        response: { 201: InvitationCreated },
      },
    },
    async (request, reply) => {
      const created = await accounts.inviteByOperator(
        request.params.org_id,
        { email: request.body.email, role: 'owner' },
        opActor(request),
      )
      reply.code(201)
      return { data: created }
    },
  )

  app.get(
    '/operator/organizations/:org_id/members',
    organizationRead({
      operationId: 'dashboardOperatorListMembers',
      summary: "An organization's members",
      response: { 200: MemberList },
    }),
    async (request) => ({ data: await accounts.listMembersOf(request.params.org_id) }),
  )
}
