import type { FastifyReply } from 'fastify'
import type { DashboardCookies } from '../../dashboard/cookies.ts'
import {
  account,
  anyAccount,
  anyAccountChange,
  change,
  ctx,
  DASHBOARD_TAG,
  type DashboardArea,
  meta,
  open,
  openChange,
  viewer,
} from '../../dashboard/route-config.ts'
import {
  AcceptInvitationBody,
  Done,
  InvitationCreated,
  InvitationList,
  InvitationLookupBody,
  InvitationParams,
  InvitationPreview,
  InvitationRevoked,
  InviteBody,
  MemberAnswer,
  MemberList,
  MemberParams,
  PasswordChangeBody,
  RoleBody,
  SessionList,
  SessionState,
  SessionsEnded,
  SignedIn,
  SignInBody,
} from './accounts.dashboard.schemas.ts'
import type { AccountService } from './accounts.service.ts'

/**
 * The dashboard's accounts: the session and its CSRF token, signing in and
 * out, invitations, members and their roles, the account's own sessions and
 * password. Members and operators alike sign in here.
 */
export const accountsDashboardRoutes: DashboardArea<{
  accounts: AccountService
  cookies: DashboardCookies
}> = (app, { accounts, cookies }) => {
  function signedIn(reply: FastifyReply, token: string) {
    cookies.setSession(reply, token)
  }

  const tags = [DASHBOARD_TAG]

  app.get(
    '/session',
    {
      config: open,
      schema: {
        operationId: 'dashboardSession',
        tags,
        summary: 'The signed-in member or operator (or null) and the CSRF token; sets the CSRF cookie',
        response: { 200: SessionState },
      },
    },
    async (request, reply) => {
      let csrf = cookies.read(request, cookies.csrf)
      if (!csrf) {
        csrf = cookies.newCsrfToken()
        cookies.setCsrf(reply, csrf)
      }
      const session = await accounts.authenticate(cookies.read(request, cookies.session))
      const signedIn = session ? accounts.me(session) : { kind: null, member: null, operator: null }
      return { data: { csrf_token: csrf, ...signedIn } }
    },
  )

  app.post(
    '/sign-in',
    {
      config: { ...openChange, errors: ['sign_in_failed', 'sign_in_throttled'] },
      schema: {
        operationId: 'dashboardSignIn',
        tags,
        summary: 'Sign in with email and password; sets the session cookie',
        body: SignInBody,
        response: { 200: SignedIn },
      },
    },
    async (request, reply) => {
      const { token, account } = await accounts.signIn(request.body, meta(request))
      signedIn(reply, token)
      return { data: account }
    },
  )

  app.post(
    '/sign-out',
    {
      config: anyAccountChange(false),
      schema: {
        operationId: 'dashboardSignOut',
        tags,
        summary: 'End this session',
        response: { 200: Done },
      },
    },
    async (request, reply) => {
      await accounts.signOut(account(request))
      cookies.clearSession(reply)
      return { data: { ok: true } }
    },
  )

  app.post(
    '/invitations/lookup',
    {
      config: { ...openChange, errors: ['invitation_invalid'] },
      schema: {
        operationId: 'dashboardLookUpInvitation',
        tags,
        summary: 'What an invitation link is for (email, organization and role, or operator)',
        body: InvitationLookupBody,
        response: { 200: InvitationPreview },
      },
    },
    async (request) => ({ data: await accounts.lookupInvitation(request.body.token) }),
  )

  app.post(
    '/invitations/accept',
    {
      config: { ...openChange, errors: ['invitation_invalid', 'member_exists'] },
      schema: {
        operationId: 'dashboardAcceptInvitation',
        tags,
        summary: 'Set the password of an invited member or operator and sign in; the link works once',
        body: AcceptInvitationBody,
        response: { 200: SignedIn },
      },
    },
    async (request, reply) => {
      const { token, account } = await accounts.acceptInvitation(
        request.body.token,
        request.body.password,
        meta(request),
      )
      signedIn(reply, token)
      return { data: account }
    },
  )

  app.get(
    '/account/sessions',
    {
      config: anyAccount,
      schema: {
        operationId: 'dashboardListSessions',
        tags,
        summary: 'The open sessions of the signed-in account',
        response: { 200: SessionList },
      },
    },
    async (request) => ({ data: await accounts.listSessions(account(request)) }),
  )

  app.post(
    '/account/sessions/sign-out-others',
    {
      config: anyAccountChange(false),
      schema: {
        operationId: 'dashboardSignOutOthers',
        tags,
        summary: 'End every other session of the account',
        response: { 200: SessionsEnded },
      },
    },
    async (request) => ({ data: { sessions_ended: await accounts.signOutOthers(account(request)) } }),
  )

  app.post(
    '/account/password',
    {
      config: { ...anyAccountChange(), errors: ['password_incorrect'] },
      schema: {
        operationId: 'dashboardChangePassword',
        tags,
        summary: 'Change the password; every other session ends',
        body: PasswordChangeBody,
        response: { 200: SessionsEnded },
      },
    },
    async (request) => ({
      data: await accounts.changePassword(account(request), request.body, meta(request)),
    }),
  )

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
