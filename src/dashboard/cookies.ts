import type { CookieSerializeOptions } from '@fastify/cookie'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { randomBase62 } from '../lib/secrets.ts'
import { SESSION_ABSOLUTE_MS } from '../modules/accounts/limits.ts'

/**
 * The dashboard's two cookies, parsed and written by @fastify/cookie (which
 * the dashboard API registers). Both HttpOnly with Path=/; over https (the
 * scheme of PUBLIC_BASE_URL) also Secure with the __Host- prefix, which
 * binds them to this exact host. The session cookie is SameSite=Lax (a link
 * from elsewhere opens the dashboard signed in); the CSRF cookie is Strict.
 */
export interface DashboardCookies {
  session: string
  csrf: string
  setSession(reply: FastifyReply, token: string): void
  clearSession(reply: FastifyReply): void
  setCsrf(reply: FastifyReply, token: string): void
  newCsrfToken(): string
  read(request: FastifyRequest, name: string): string | undefined
}

export function dashboardCookies(publicBaseUrl: string): DashboardCookies {
  const secure = new URL(publicBaseUrl).protocol === 'https:'
  const prefix = secure ? '__Host-' : ''
  const session = `${prefix}dashboard_session`
  const csrf = `${prefix}dashboard_csrf`
  const options = (sameSite: 'lax' | 'strict', maxAge: number): CookieSerializeOptions => ({
    path: '/',
    httpOnly: true,
    sameSite,
    maxAge,
    secure,
  })
  return {
    session,
    csrf,
    setSession: (reply, token) => {
      reply.setCookie(session, token, options('lax', SESSION_ABSOLUTE_MS / 1000))
    },
    clearSession: (reply) => {
      reply.setCookie(session, '', options('lax', 0))
    },
    setCsrf: (reply, token) => {
      reply.setCookie(csrf, token, options('strict', SESSION_ABSOLUTE_MS / 1000))
    },
    newCsrfToken: () => randomBase62(43),
    read: (request, name) => request.cookies[name] || undefined,
  }
}
