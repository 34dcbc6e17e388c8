import Type from 'typebox'
import {
  DASHBOARD_TAG,
  type DashboardArea,
  opActor,
  operatorChange,
  organizationRead,
} from '../../dashboard/route-config.ts'
import { OrgParams } from '../organizations/organizations.console.schemas.ts'
import {
  InvitationCreated,
  MemberList,
  MemberParams,
  OwnerInviteBody,
  PasswordResetCreated,
} from './accounts.dashboard.schemas.ts'
import type { AccountService } from './accounts.service.ts'

/**
 * The operator console's view of an organization's people: inviting its owner, its members, a
 * member's password reset link.
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

  app.post(
    '/operator/organizations/:org_id/members/:member_id/password-reset',
    {
      config: { ...operatorChange(false), errors: ['not_found'] },
      schema: {
        operationId: 'dashboardOperatorIssuePasswordReset',
        tags,
        summary:
          "Issue a password reset link for a member of an organization: shown once, it works once within the hour and ends the member's sessions",
        params: Type.Object({ ...OrgParams.properties, ...MemberParams.properties }),
        response: { 201: PasswordResetCreated },
      },
    },
    async (request, reply) => {
      reply.code(201)
      return {
        data: await accounts.issuePasswordResetByOperator(
          request.params.org_id,
          request.params.member_id,
          opActor(request),
        ),
      }
    },
  )
}
