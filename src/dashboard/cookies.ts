import { randomBase62 } from '../lib/secrets.ts'
import { SESSION_ABSOLUTE_MS } from '../modules/accounts/limits.ts'

/**
 * The dashboard's two cookies. Both HttpOnly with Path=/; over https (the
 * scheme of PUBLIC_BASE_URL) also Secure with the __Host- prefix, which
 * binds them to this exact host. The session cookie is SameSite=Lax (a link
 * from elsewhere opens the dashboard signed in); the CSRF cookie is Strict.
 */
export interface DashboardCookies {
  session: string
  csrf: string
  sessionCookie(token: string): string
  clearSession(): string
  csrfCookie(token: string): string
  newCsrfToken(): string
  read(header: string | undefined, name: string): string | undefined
}

export function dashboardCookies(publicBaseUrl: string): DashboardCookies {
  const secure = new URL(publicBaseUrl).protocol === 'https:'
  const prefix = secure ? '__Host-' : ''
  const session = `${prefix}dashboard_session`
  const csrf = `${prefix}dashboard_csrf`
  const attributes = (sameSite: 'Lax' | 'Strict', maxAge: number) =>
    [`Path=/`, 'HttpOnly', `SameSite=${sameSite}`, `Max-Age=${maxAge}`, ...(secure ? ['Secure'] : [])].join(
      '; ',
    )
  return {
    session,
    csrf,
    sessionCookie: (token) => `${session}=${token}; ${attributes('Lax', SESSION_ABSOLUTE_MS / 1000)}`,
    clearSession: () => `${session}=; ${attributes('Lax', 0)}`,
    csrfCookie: (token) => `${csrf}=${token}; ${attributes('Strict', SESSION_ABSOLUTE_MS / 1000)}`,
    newCsrfToken: () => randomBase62(43),
    read(header, name) {
      if (!header) return undefined
      for (const part of header.split(';')) {
        const eq = part.indexOf('=')
        if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || undefined
      }
      return undefined
    },
  }
}
