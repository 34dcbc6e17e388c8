import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Role } from '../db/schema.ts'
import { AppError } from '../http/errors.ts'
import { secretsEqual } from '../lib/secrets.ts'
import type { AccountService } from '../modules/accounts/accounts.service.ts'
import { type AccountContext, isOperator, type SessionContext } from '../modules/accounts/accounts.views.ts'
import type { DashboardCookies } from './cookies.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Dashboard routes: the least role that may call it (roles rank owner > developer > viewer). */
    role?: Role
    /** Dashboard routes that change something: Origin and X-CSRF-Token are checked. */
    csrf?: boolean
    /**
     * Which accounts a session route is for: members of an organization (the
     * default), operators only, or any (the account's own sessions and password).
     */
    accounts?: 'member' | 'operator' | 'any'
  }
  interface FastifyRequest {
    /** The member of a member route (or of an `any` route signed in as a member). */
    dashboard: SessionContext | undefined
    /** Either kind of account, on every session route. */
    account: AccountContext | undefined
  }
}

const RANK: Record<Role, number> = { viewer: 0, developer: 1, owner: 2 }

/**
 * The dashboard API's onRequest hook, in the order a route's config asks:
 * the session cookie (`auth: 'session'`), then Origin and the CSRF token
 * (`csrf`), then the least role (`role`).
 */
export function dashboardGuard(deps: {
  accounts: AccountService
  cookies: DashboardCookies
  publicBaseUrl: string
}) {
  const { accounts, cookies } = deps
  const origins = (host: string | undefined) => {
    const base = new URL(deps.publicBaseUrl)
    // The configured origin, and the one the browser reached (same scheme).
    return [base.origin, ...(host ? [`${base.protocol}//${host}`] : [])]
  }

  function checkCsrf(request: FastifyRequest): void {
    const origin = request.headers.origin
    if (typeof origin !== 'string' || !origins(request.headers.host).includes(origin)) {
      throw new AppError('csrf_failed', { hint: 'The Origin header does not name this service.' })
    }
    const sent = request.headers['x-csrf-token']
    const expected = cookies.read(request, cookies.csrf)
    if (typeof sent !== 'string' || !expected || !secretsEqual(sent, expected)) {
      throw new AppError('csrf_failed', { hint: 'The X-CSRF-Token header is missing or wrong.' })
    }
  }

  return async function guard(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    // Answers about sessions are never cached.
    reply.header('cache-control', 'no-store')
    const config = request.routeOptions.config
    if (config.auth === 'session') {
      const session = await accounts.authenticate(cookies.read(request, cookies.session))
      if (!session) throw new AppError('session_required')
      request.account = session
      if (!isOperator(session)) request.dashboard = session
    }
    if (config.csrf) checkCsrf(request)
    const account = request.account
    if (config.auth === 'session' && account) {
      const wants = config.accounts ?? 'member'
      // Members never reach operator routes; operators have no organization for member routes.
      if (wants === 'operator' && !isOperator(account)) {
        throw new AppError('role_required', { message: 'This needs an operator account.' })
      }
      if (wants === 'member' && isOperator(account)) {
        throw new AppError('role_required', {
          message: 'This needs a member of an organization; an operator account has none.',
        })
      }
    }
    const member = request.dashboard?.member
    if (config.role && member && RANK[member.role] < RANK[config.role]) {
      throw new AppError('role_required', { message: `This needs the ${config.role} role.` })
    }
  }
}
