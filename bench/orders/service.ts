// The processes the orders bench starts (the real service and the bare ceiling
// route), the operator API calls that give the service an organization and keys,
// and the cleanup that stops them all, also on Ctrl-C.
import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { closeSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { pathToFileURL } from 'node:url'
import { freePort, ROOT } from '../lib/service.ts'
import { opts, workDir } from './options.ts'

const OPERATOR_TOKEN = `op_bench_${randomBytes(16).toString('hex')}`

// ---------------------------------------------------------------- processes

export interface Proc {
  name: string
  url: string
  child: ChildProcess
  logPath: string
  /** The service's DATA_DIR (startService). */
  dataDir?: string
  stop(): Promise<void>
}
const running = new Set<Proc>()
/** Cleanups that must also run on Ctrl-C (dropping the bench database). */
export const atExit: (() => Promise<void>)[] = []

async function startProcess(
  name: string,
  script: string,
  env: Record<string, string>,
  nodeArgs: string[] = [],
): Promise<Proc> {
  const port = await freePort()
  const logPath = join(workDir, `${name}.log`)
  const out = openSync(logPath, 'a')
  const execArgv = [
    ...(process.env.BENCH_SERVICE_ARGS?.split(' ').filter(Boolean) ?? []),
    ...nodeArgs,
    ...(opts.profile ? ['--cpu-prof', `--cpu-prof-dir=${join(workDir, `profile-${name}`)}`] : []),
  ]
  const baseEnv = { ...process.env }
  for (const k of ['DATABASE_URL', 'REDIS_URL', 'DATA_DIR', 'OPERATOR_TOKEN', 'PORT', 'S3_BUCKET'])
    delete baseEnv[k]
  const child = spawn(process.execPath, [...execArgv, join(ROOT, script)], {
    cwd: ROOT,
    env: { ...baseEnv, HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', out, out],
  })
  closeSync(out)
  const url = `http://127.0.0.1:${port}`
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const proc: Proc = {
    name,
    url,
    child,
    logPath,
    async stop() {
      running.delete(proc)
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
      await exited
      clearTimeout(timer)
    },
  }
  running.add(proc)
  const deadline = Date.now() + 120_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break
    try {
      const res = await fetch(`${url}/healthz`)
      if (res.ok) return proc
    } catch {
      // not listening yet
    }
    await sleep(200)
  }
  await proc.stop()
  throw new Error(`${name} did not start:\n${readFileSync(logPath, 'utf8').slice(-3000)}`)
}

/** The real service, src/main.ts, configured by environment like in production. */
export async function startService(name: string, env: Record<string, string>, nodeArgs: string[] = []) {
  const dataDir = join(workDir, `${name}-data`)
  mkdirSync(dataDir, { recursive: true })
  const proc = await startProcess(
    name,
    'src/main.ts',
    {
      DATA_DIR: dataDir,
      RATE_LIMIT_PER_MINUTE: '10000000',
      LOG_LEVEL: 'warn',
      OPERATOR_TOKEN,
      ...env,
    },
    nodeArgs,
  )
  proc.dataDir = dataDir
  return proc
}

export const hook = (file: string) => pathToFileURL(join(ROOT, 'bench', 'hooks', file)).href

/** The bare route, bench/ceiling-server.ts. */
export function startCeiling(name: string, env: Record<string, string>) {
  const dataDir = join(workDir, `${name}-data`)
  mkdirSync(dataDir, { recursive: true })
  return startProcess(name, 'bench/ceiling-server.ts', { DATA_DIR: dataDir, ...env })
}

/** Stops every process still running, runs atExit, removes the temp dir unless --keep or --profile. */
export async function cleanup(): Promise<void> {
  for (const proc of [...running]) await proc.stop().catch(() => {})
  for (const fn of atExit.splice(0)) await fn().catch(() => {})
  if (!opts.keep && !opts.profile) rmSync(workDir, { recursive: true, force: true })
  else console.log(`kept ${workDir}`)
}

// ---------------------------------------------------------------- HTTP helpers

export async function call(url: string, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 500)}`)
  return JSON.parse(text)
}

/** One request, timed; throws unless it answers `expect`. */
export async function timed(
  url: string,
  init: RequestInit,
  expect: number,
): Promise<{ ms: number; text: string }> {
  const start = performance.now()
  const res = await fetch(url, init)
  const text = await res.text()
  const ms = performance.now() - start
  if (res.status !== expect)
    throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${text.slice(0, 300)}`)
  return { ms, text }
}

export interface Tenant {
  orgId: string
  /** Every organization the keys belong to (--orgs); orgIds[0] === orgId. */
  orgIds: string[]
  keys: string[]
}

export async function createTenant(
  url: string,
  keyCount: number,
  environment = 'live',
  orgCount = 1,
): Promise<Tenant> {
  const orgIds: string[] = []
  for (let i = 0; i < orgCount; i++) {
    const org = await call(url, OPERATOR_TOKEN, 'POST', '/admin/v1/organizations', {
      name: `Bench ${i} GmbH`,
    })
    orgIds.push(org.data.organization.id)
  }
  const orgId = orgIds[0]!
  const keys: string[] = []
  for (let i = 0; i < keyCount; i++) {
    const created = await call(
      url,
      OPERATOR_TOKEN,
      'POST',
      `/admin/v1/organizations/${orgIds[i % orgCount]}/api-keys`,
      {
        environment,
        scopes: ['orders:read', 'orders:write'],
        name: `bench ${i}`,
      },
    )
    keys.push(created.data.key)
  }
  return { orgId, orgIds, keys }
}
