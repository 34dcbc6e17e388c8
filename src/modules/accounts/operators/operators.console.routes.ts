import {
  DASHBOARD_TAG,
  type DashboardArea,
  opActor,
  operatorChange,
  operatorCtx,
  operatorOnly,
} from '../../../dashboard/route-config.ts'
import {
  InvitationParams,
  InviteOperatorBody,
  OperatorInvitationCreated,
  OperatorInvitationList,
  OperatorInvitationRevoked,
  OperatorList,
  OperatorParams,
  OperatorRemoved,
  PasswordResetCreated,
} from '../accounts.dashboard.schemas.ts'
import type { AccountService } from '../accounts.service.ts'

/**
 * /dashboard/api/operator/operators: the platform's operator accounts and
 * their invitations, for operator accounts only. The same service as
 * /admin/v1/operators, with the operator account as the audit actor; an
 * operator account cannot remove itself (the operator token always remains).
 */
export const operatorsConsoleRoutes: DashboardArea<{ accounts: AccountService }> = (app, { accounts }) => {
  const tags = [DASHBOARD_TAG]

  app.get(
    '/operator/operators',
    {
      config: operatorOnly,
      schema: {
        operationId: 'dashboardListOperators',
        tags,
        summary: "The platform's operator accounts (operators only)",
        response: { 200: OperatorList },
      },
    },
    async () => ({ data: await accounts.listOperators() }),
  )

  app.get(
    '/operator/operators/invitations',
    {
      config: operatorOnly,
      schema: {
        operationId: 'dashboardListOperatorInvitations',
        tags,
        summary: 'Operator invitations not yet accepted, revoked or expired',
        response: { 200: OperatorInvitationList },
      },
    },
    async () => ({ data: await accounts.listOperatorInvitations() }),
  )

  app.post(
    '/operator/operators/invitations',
    {
      config: { ...operatorChange(), errors: ['member_exists'] },
      schema: {
        operationId: 'dashboardInviteOperator',
        tags,
        summary: 'Invite an operator: the link (7 days, single use) is shown once',
        body: InviteOperatorBody,
        response: { 201: OperatorInvitationCreated },
      },
    },
    async (request, reply) => {
      reply.code(201)
      return { data: await accounts.inviteOperator(request.body, opActor(request)) }
    },
  )

  app.delete(
    '/operator/operators/invitations/:invitation_id',
    {
      config: operatorChange(false),
      schema: {
        operationId: 'dashboardRevokeOperatorInvitation',
        tags,
        summary: 'Revoke a pending operator invitation: its link stops working at once',
        params: InvitationParams,
        response: { 200: OperatorInvitationRevoked },
      },
    },
    async (request) => ({
      data: {
        invitation: await accounts.revokeOperatorInvitation(request.params.invitation_id, opActor(request)),
      },
    }),
  )

  app.delete(
    '/operator/operators/:operator_id',
    {
      config: { ...operatorChange(false), errors: ['operator_self_removal'] },
      schema: {
        operationId: 'dashboardRemoveOperator',
        tags,
        summary: 'Remove another operator account: its sessions end at once and its email is free',
        params: OperatorParams,
        response: { 200: OperatorRemoved },
      },
    },
    async (request) => ({
      data: await accounts.removeOperator(request.params.operator_id, {
        actor: opActor(request),
        self: operatorCtx(request).operator.id,
      }),
    }),
  )

  app.post(
    '/operator/operators/:operator_id/password-reset',
    {
      config: operatorChange(false),
      schema: {
        operationId: 'dashboardIssueOperatorPasswordReset',
        tags,
        summary:
          "Issue a password reset link for an operator account: shown once, it works once within the hour and ends the account's sessions",
        params: OperatorParams,
        response: { 201: PasswordResetCreated },
      },
    },
    async (request, reply) => {
      reply.code(201)
      return { data: await accounts.issueOperatorPasswordReset(request.params.operator_id, opActor(request)) }
    },
  )
}
