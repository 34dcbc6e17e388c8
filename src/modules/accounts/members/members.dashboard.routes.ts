import {
  change,
  ctx,
  DASHBOARD_TAG,
  type DashboardArea,
  meta,
  viewer,
} from '../../../dashboard/route-config.ts'
import {
  InvitationCreated,
  InvitationList,
  InvitationParams,
  InvitationRevoked,
  InviteBody,
  MemberAnswer,
  MemberList,
  MemberParams,
  PasswordResetCreated,
  RoleBody,
} from '../accounts.dashboard.schemas.ts'
import type { AccountService } from '../accounts.service.ts'

/** An organization's members and their roles, their password reset links, and its invitations (owners invite and revoke). */
export const membersDashboardRoutes: DashboardArea<{ accounts: AccountService }> = (app, { accounts }) => {
  const tags = [DASHBOARD_TAG]

  app.get(
    '/members',
    {
      config: viewer,
      schema: {
        operationId: 'dashboardListMembers',
        tags,
        summary: "The organization's members",
        response: { 200: MemberList },
      },
    },
    async (request) => ({ data: await accounts.listMembers(ctx(request)) }),
  )

  app.patch(
    '/members/:member_id',
    {
      config: { ...change('owner'), errors: ['last_owner'] },
      schema: {
        operationId: 'dashboardChangeRole',
        tags,
        summary: "Change a member's role",
        params: MemberParams,
        body: RoleBody,
        response: { 200: MemberAnswer },
      },
    },
    async (request) => ({
      data: {
        member: await accounts.changeRole(
          ctx(request),
          request.params.member_id,
          request.body.role,
          meta(request),
        ),
      },
    }),
  )

  app.delete(
    '/members/:member_id',
    {
      config: { ...change('owner', false), errors: ['last_owner'] },
      schema: {
        operationId: 'dashboardRemoveMember',
        tags,
        summary: 'Remove a member: the account and its sessions end',
        params: MemberParams,
        response: { 200: MemberAnswer },
      },
    },
    async (request) => ({
      data: { member: await accounts.removeMember(ctx(request), request.params.member_id, meta(request)) },
    }),
  )

  app.post(
    '/members/:member_id/password-reset',
    {
      config: change('owner', false),
      schema: {
        operationId: 'dashboardIssuePasswordReset',
        tags,
        summary:
          "Issue a password reset link for a member: shown once, it works once within the hour and ends the member's sessions (the service sends no email)",
        params: MemberParams,
        response: { 201: PasswordResetCreated },
      },
    },
    async (request, reply) => {
      reply.code(201)
      return {
        data: await accounts.issuePasswordReset(ctx(request), request.params.member_id, meta(request)),
      }
    },
  )

  app.get(
    '/invitations',
    {
      config: { auth: 'session', role: 'owner' },
      schema: {
        operationId: 'dashboardListInvitations',
        tags,
        summary: 'Invitations not yet accepted, revoked or expired',
        response: { 200: InvitationList },
      },
    },
    async (request) => ({ data: await accounts.listInvitations(ctx(request)) }),
  )

  app.post(
    '/invitations',
    {
      config: { ...change('owner'), errors: ['member_exists'] },
      schema: {
        operationId: 'dashboardInvite',
        tags,
        summary: 'Invite someone: the link is shown to copy (the service sends no email)',
        body: InviteBody,
        response: { 201: InvitationCreated },
      },
    },
    async (request, reply) => {
      reply.code(201)
      return { data: await accounts.invite(ctx(request), request.body, meta(request)) }
    },
  )

  app.delete(
    '/invitations/:invitation_id',
    {
      config: change('owner', false),
      schema: {
        operationId: 'dashboardRevokeInvitation',
        tags,
        summary: 'Revoke a pending invitation: its link stops working at once',
        params: InvitationParams,
        response: { 200: InvitationRevoked },
      },
    },
    async (request) => ({
      data: {
        invitation: await accounts.revokeInvitation(
          ctx(request),
          request.params.invitation_id,
          meta(request),
        ),
      },
    }),
  )
}
