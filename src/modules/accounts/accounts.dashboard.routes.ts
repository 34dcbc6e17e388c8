import type { DashboardCookies } from '../../dashboard/cookies.ts'
import {
  account,
  anyAccount,
  anyAccountChange,
  DASHBOARD_TAG,
  type DashboardArea,
  meta,
  open,
  openChange,
} from '../../dashboard/route-config.ts'
import {
  AcceptInvitationBody,
  Done,
  InvitationLookupBody,
  InvitationPreview,
  PasswordChangeBody,
  PasswordResetLookupBody,
  PasswordResetPreview,
  SessionList,
  SessionState,
  SessionsEnded,
  SignedIn,
  SignInBody,
  UsePasswordResetBody,
} from './accounts.dashboard.schemas.ts'
import type { AccountService } from './accounts.service.ts'

interface AccountsDeps {
  accounts: AccountService
  cookies: DashboardCookies
}

/** The session and its CSRF token, signing in and out. */
const sessionRoutes: DashboardArea<AccountsDeps> = (app, { accounts, cookies }) => {
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
      cookies.setSession(reply, token)
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
}

/** An invitation link: what it is for, and accepting it (which signs in). */
const invitationRoutes: DashboardArea<AccountsDeps> = (app, { accounts, cookies }) => {
  const tags = [DASHBOARD_TAG]

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
      cookies.setSession(reply, token)
      return { data: account }
    },
  )
}

/** A password reset link: whose it is, and using it (which ends every session and signs in). */
const passwordResetRoutes: DashboardArea<AccountsDeps> = (app, { accounts, cookies }) => {
  const tags = [DASHBOARD_TAG]

  app.post(
    '/password-resets/lookup',
    {
      config: { ...openChange, errors: ['password_reset_invalid'] },
      schema: {
        operationId: 'dashboardLookUpPasswordReset',
        tags,
        summary: 'Whose password a reset link sets, and until when it works',
        body: PasswordResetLookupBody,
        response: { 200: PasswordResetPreview },
      },
    },
    async (request) => ({ data: await accounts.lookupPasswordReset(request.body.token) }),
  )

  app.post(
    '/password-resets/use',
    {
      config: { ...openChange, errors: ['password_reset_invalid'] },
      schema: {
        operationId: 'dashboardUsePasswordReset',
        tags,
        summary:
          'Set a new password with a reset link: every session of the account ends, and this one starts',
        body: UsePasswordResetBody,
        response: { 200: SignedIn },
      },
    },
    async (request, reply) => {
      const { token, account } = await accounts.resetPassword(
        request.body.token,
        request.body.password,
        meta(request),
      )
      cookies.setSession(reply, token)
      return { data: account }
    },
  )
}

/** The signed-in account's own sessions and password. */
const ownAccountRoutes: DashboardArea<AccountsDeps> = (app, { accounts }) => {
  const tags = [DASHBOARD_TAG]

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
}

/**
 * The dashboard's accounts: the session and its CSRF token, signing in and
 * out, accepting an invitation, using a password reset link, the account's
 * own sessions and password.
 * Members and operators alike sign in here.
 */
export const accountsDashboardRoutes: DashboardArea<AccountsDeps> = (app, deps) => {
  sessionRoutes(app, deps)
  invitationRoutes(app, deps)
  passwordResetRoutes(app, deps)
  ownAccountRoutes(app, deps)
}
