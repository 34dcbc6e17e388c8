import { type ChildProcess, spawn } from 'node:child_process'
import { type AddressInfo, createServer, Socket } from 'node:net'

/** The real entry point (src/main.ts) in a child process, for tests of the process itself. */
export interface ServiceProcess {
  child: ChildProcess
  port: number
  output: () => string
  exited: Promise<number | null>
}

/**
 * V8 flags of the suite's processes (scripts/test.ts): PGlite's 9 MB of
 * WebAssembly compiled by the baseline compiler only. A test's process lives for
 * seconds, and the optimizing compiler's work for it cost more CPU and memory
 * than it saved.
 */
export const SUITE_NODE_FLAGS = ['--liftoff-only']

/** Spawns src/main.ts on a free port (PORT=0) without waiting for anything. */
export function spawnService(env: Record<string, string>): Omit<ServiceProcess, 'port'> {
  const child = spawn(process.execPath, [...SUITE_NODE_FLAGS, 'src/main.ts'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', REDIS_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const output = collectOutput(child)
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return { child, output, exited }
}

/** Everything a child process writes to stdout and stderr, so far. */
export function collectOutput(child: ChildProcess): () => string {
  let output = ''
  for (const stream of [child.stdout, child.stderr]) stream?.on('data', (d) => (output += d))
  return () => output
}

/** A port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** Starts the service on a free port (PORT=0) and resolves once it logged that it is ready. */
export async function startServiceProcess(env: Record<string, string>): Promise<ServiceProcess> {
  const { child, output, exited } = spawnService(env)
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setInterval(() => {
      const match = /listening at http:\/\/[^:]+:(\d+)/.exec(output())
      if (match && output().includes('service ready')) {
        clearInterval(timer)
        resolve(Number(match[1]))
      }
    }, 50)
    exited.then((code) => {
      clearInterval(timer)
      reject(new Error(`service exited (${code}) before it was ready:\n${output()}`))
    })
  })
  return { child, port, output, exited }
}

/** A JSON answer of the service, read field by field by the tests. */
// biome-ignore lint/suspicious/noExplicitAny: answers of every route, read field by field
export type Json = any

/** JSON over HTTP to a service process, with a bearer token (a key or the operator token). */
export async function callService(
  port: number,
  auth: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${auth}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : undefined }
}

/** Whether something accepts connections on the port (127.0.0.1). */
export function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket()
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
    socket.connect(port, '127.0.0.1')
  })
}
