import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { collectOutput, freePort } from '../../test/helpers/service-process.ts'

export { freePort }

export const ROOT = new URL('../..', import.meta.url).pathname

/** The real service (src/main.ts) in a child process, on a free port. */
export interface Service {
  child: ChildProcess
  port: number
  base: string
  operatorToken: string
  /** Operator API call. */
  // biome-ignore lint/suspicious/noExplicitAny: answers of every operator route, read field by field by the benches
  admin(method: string, path: string, body?: unknown): Promise<any>
  /** Current and peak resident memory of the service process, in bytes (Linux /proc). */
  memory(): { rss: number; peak: number }
  /** Resets the peak (VmHWM) so the next memory() peak covers only what follows. */
  resetPeak(): void
  stop(): Promise<void>
}

export async function startService(env: Record<string, string>): Promise<Service> {
  const operatorToken = `op_bench_${randomBytes(16).toString('hex')}`
  const port = await freePort()
  const child = spawn(
    process.execPath,
    [...(process.env.BENCH_SERVICE_ARGS?.split(' ').filter(Boolean) ?? []), 'src/main.ts'],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: String(port),
        LOG_LEVEL: 'warn',
        RATE_LIMIT_PER_MINUTE: '10000000',
        OPERATOR_TOKEN: operatorToken,
        REDIS_URL: '',
        DATABASE_URL: '',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  const output = collectOutput(child)
  const base = `http://127.0.0.1:${port}`
  let exited: number | null | undefined
  child.once('exit', (code) => {
    exited = code
  })
  for (;;) {
    if (exited !== undefined) throw new Error(`service exited (${exited}):\n${output()}`)
    const ok = await fetch(`${base}/readyz`).then(
      (r) => r.ok,
      () => false,
    )
    if (ok) break
    await new Promise((r) => setTimeout(r, 50))
  }
  const status = () => readFileSync(`/proc/${child.pid}/status`, 'utf8')
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status())?.[1] ?? 0) * 1024
  return {
    child,
    port,
    base,
    operatorToken,
    async admin(method, path, body) {
      const res = await fetch(`${base}/admin/v1${path}`, {
        method,
        headers: {
          authorization: `Bearer ${operatorToken}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
      const json = await res.json()
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`)
      return json
    },
    memory: () => ({ rss: kb('VmRSS'), peak: kb('VmHWM') }),
    resetPeak: () => writeFileSync(`/proc/${child.pid}/clear_refs`, '5'),
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    },
  }
}

/**
 * A member of the organization (or an operator) signed in through an
 * invitation it accepts: the session's cookie header, for /dashboard/api.
 */
export async function signIn(
  service: Service,
  orgId: string,
  role: 'viewer' | 'owner' | 'operator' = 'viewer',
) {
  const base = service.base
  const email = `${role}-${Date.now()}@example.com`
  const invitation =
    role === 'operator'
      ? await service.admin('POST', '/operators/invitations', { email })
      : await service.admin('POST', `/organizations/${orgId}/invitations`, { email, role })
  const token = new URL(invitation.data.url).hash.replace(/^#token=/, '')
  const jar = new Map<string, string>()
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ')
  const keep = (res: Response) => {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';')
      const eq = pair!.indexOf('=')
      jar.set(pair!.slice(0, eq), pair!.slice(eq + 1))
    }
  }
  const state = await fetch(`${base}/dashboard/api/session`)
  keep(state)
  const csrf = ((await state.json()) as { data: { csrf_token: string } }).data.csrf_token
  const accepted = await fetch(`${base}/dashboard/api/invitations/accept`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base, 'x-csrf-token': csrf, cookie: cookie() },
    body: JSON.stringify({ token, password: 'correct horse battery staple' }),
  })
  if (!accepted.ok) throw new Error(`accept: ${accepted.status} ${await accepted.text()}`)
  keep(accepted)
  return cookie()
}

/** An organization with one live key carrying every scope. */
export async function tenant(service: Service, name = 'Bench'): Promise<{ orgId: string; key: string }> {
  const org = (await service.admin('POST', '/organizations', { name })).data.organization
  const created = await service.admin('POST', `/organizations/${org.id}/api-keys`, {
    environment: 'live',
    scopes: ['orders:read', 'orders:write', 'files:write', 'webhooks:manage'],
  })
  return { orgId: org.id, key: created.data.key }
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN
}

/** A /v1 call with an API key; the answer's status, Retry-After (seconds, 1 if absent) and body. */
export async function v1(service: Service, key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${service.base}/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  return {
    status: res.status,
    retryAfter: Number(res.headers.get('retry-after') ?? 1),
    json: await res.json(),
  }
}
