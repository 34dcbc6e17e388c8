import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import { PUBLIC_BASE_URL, type TestApp } from './app.ts'

export const PASSWORD = 'correct horse battery staple'

/**
 * A browser's view of the dashboard API over inject: a cookie jar, the
 * Origin of the service, and the CSRF token from GET /dashboard/api/session
 * on every state-changing call (each of which can be left out by a test).
 */
export interface DashboardClient {
  cookies: Map<string, string>
  csrf: string
  call(
    method: InjectOptions['method'],
    path: string,
    payload?: unknown,
    options?: { origin?: string | null; csrf?: string | null; headers?: Record<string, string> },
  ): Promise<LightMyRequestResponse>
  /** GET /dashboard/api/session; refreshes the CSRF token. */
  session(): Promise<LightMyRequestResponse>
}

export function cookieHeader(cookies: Map<string, string>): string {
  return [...cookies].map(([k, v]) => `${k}=${v}`).join('; ')
}

/** Set-Cookie headers of a response, as an array. */
export function setCookies(res: LightMyRequestResponse): string[] {
  const raw = res.headers['set-cookie']
  return raw === undefined ? [] : Array.isArray(raw) ? raw : [raw]
}

/** A network address of its own (sign-in is counted per address). */
export const randomAddress = () => `10.${[...randomBytes(3)].join('.')}`

export async function dashboardClient(
  t: Pick<TestApp, 'app'>,
  options: { origin?: string; address?: string; headers?: Record<string, string> } = {},
): Promise<DashboardClient> {
  const origin = options.origin ?? PUBLIC_BASE_URL
  const remoteAddress = options.address ?? randomAddress()
  const client: DashboardClient = {
    cookies: new Map(),
    csrf: '',
    async call(method, path, payload, call = {}) {
      const headers: Record<string, string> = { ...options.headers, ...call.headers }
      if (client.cookies.size) headers.cookie = cookieHeader(client.cookies)
      const o = call.origin === undefined ? origin : call.origin
      if (o !== null) headers.origin = o
      const csrf = call.csrf === undefined ? client.csrf : call.csrf
      if (csrf !== null && method !== 'GET') headers['x-csrf-token'] = csrf
      if (payload !== undefined) headers['content-type'] = 'application/json'
      const res = await t.app.inject({
        method,
        url: `/dashboard/api${path}`,
        headers,
        remoteAddress,
        ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
      })
      for (const cookie of setCookies(res)) {
        const [pair] = cookie.split(';')
        const eq = pair!.indexOf('=')
        const name = pair!.slice(0, eq)
        const value = pair!.slice(eq + 1)
        if (/max-age=0\b/i.test(cookie) || value === '') client.cookies.delete(name)
        else client.cookies.set(name, value)
      }
      return res
    },
    async session() {
      const res = await client.call('GET', '/session')
      assert.equal(res.statusCode, 200, res.body)
      client.csrf = res.json().data.csrf_token
      return res
    },
  }
  await client.session()
  return client
}

export const uniqueEmail = (name = 'member') => `${name}-${randomBytes(4).toString('hex')}@example.com`

/** The token of an invitation link (in its fragment). */
export const tokenOf = (url: string) => new URL(url).hash.replace(/^#token=/, '')

/** An invitation made by the operator; its link's token. */
export async function operatorInvite(
  t: TestApp,
  orgId: string,
  email: string,
  role: 'owner' | 'developer' | 'viewer' = 'owner',
): Promise<string> {
  const res = await t.admin('POST', `/admin/v1/organizations/${orgId}/invitations`, { email, role })
  assert.equal(res.statusCode, 201, res.body)
  return tokenOf(res.json().data.url)
}

/** A member signed in through an accepted invitation: its client, email and member id. */
export async function memberOf(
  t: TestApp,
  orgId: string,
  role: 'owner' | 'developer' | 'viewer' = 'owner',
  options: { origin?: string } = {},
) {
  const email = uniqueEmail(role)
  const token = await operatorInvite(t, orgId, email, role)
  const client = await dashboardClient(t, options)
  const res = await client.call('POST', '/invitations/accept', { token, password: PASSWORD })
  assert.equal(res.statusCode, 200, res.body)
  return { client, email, id: res.json().data.member.id as string }
}

/** An operator account signed in through an accepted operator invitation: its client, email and operator id. */
export async function operatorOf(t: TestApp, options: { origin?: string } = {}) {
  const email = uniqueEmail('operator')
  const invited = await t.admin('POST', '/admin/v1/operators/invitations', { email })
  assert.equal(invited.statusCode, 201, invited.body)
  const client = await dashboardClient(t, options)
  const res = await client.call('POST', '/invitations/accept', {
    token: tokenOf(invited.json().data.url),
    password: PASSWORD,
  })
  assert.equal(res.statusCode, 200, res.body)
  return { client, email, id: res.json().data.operator.id as string }
}
