import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'

/** `npm start` as a user runs it, on a free port and a fresh DATA_DIR. */
interface Started {
  npm: ChildProcess
  port: number
  output: () => string
  exited: Promise<void>
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

function accepts(port: number): Promise<boolean> {
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

async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await condition()) return true
    await sleep(100)
  }
  return condition()
}

const started: Started[] = []
const dirs: string[] = []

async function npmStart(options: { ownGroup?: boolean } = {}): Promise<Started> {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-stop-'))
  dirs.push(dataDir)
  const port = await freePort()
  const npm = spawn('npm', ['start'], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A terminal's foreground job: Ctrl-C signals the whole group.
    detached: options.ownGroup ?? false,
  })
  let output = ''
  npm.stdout!.on('data', (d) => {
    output += d
  })
  npm.stderr!.on('data', (d) => {
    output += d
  })
  const exited = new Promise<void>((resolve) => npm.once('exit', () => resolve()))
  const s = { npm, port, output: () => output, exited }
  started.push(s)
  assert.ok(await until(() => output.includes('service ready'), 60_000), `not ready:\n${output}`)
  return s
}

afterEach(async () => {
  // Whatever a failed test left running: the service reports its pid in each JSON line.
  for (const s of started.splice(0)) {
    s.npm.kill('SIGKILL')
    const pid = /"pid":(\d+)/.exec(s.output())?.[1]
    if (pid) {
      try {
        process.kill(Number(pid), 'SIGKILL')
      } catch {}
    }
  }
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
})

describe('stopping a service started with npm start', () => {
  test('SIGTERM to the npm process stops the service: the port is free once npm has exited', async () => {
    const s = await npmStart()
    assert.equal(await accepts(s.port), true)
    s.npm.kill('SIGTERM')
    await s.exited
    assert.ok(await until(async () => !(await accepts(s.port)), 5000), `port ${s.port} still open`)
    assert.match(s.output(), /"signal":"SIGTERM","msg":"shutting down: draining in-flight requests"/)
    assert.match(s.output(), /"msg":"stopped"/)
  })

  test('Ctrl-C (SIGINT to the foreground group, which npm forwards again) drains once and stops', async () => {
    const s = await npmStart({ ownGroup: true })
    process.kill(-s.npm.pid!, 'SIGINT')
    await s.exited
    assert.equal(await accepts(s.port), false)
    assert.match(s.output(), /"msg":"stopped"/)
    assert.doesNotMatch(s.output(), /exiting at once/)
  })

  test('npm killed outright (SIGKILL): the service notices that its parent is gone and stops', async () => {
    const s = await npmStart()
    s.npm.kill('SIGKILL')
    assert.ok(await until(async () => !(await accepts(s.port)), 10_000), `port ${s.port} still open`)
    assert.match(s.output(), /"parentExited":true/)
    assert.ok(await until(() => s.output().includes('"msg":"stopped"'), 5000))
  })
})
