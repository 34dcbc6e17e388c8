import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { rm } from 'node:fs/promises'
import { afterEach, describe, test } from 'node:test'
import { seededDataDir } from './helpers/databases.ts'
import { accepts, collectOutput, freePort } from './helpers/service-process.ts'
import { waitUntil } from './helpers/wait.ts'

/** `npm start` as a user runs it, on a free port and a DATA_DIR of its own (already migrated). */
interface Started {
  npm: ChildProcess
  port: number
  output: () => string
  exited: Promise<void>
}

const started: Started[] = []
const dirs: string[] = []

async function npmStart(options: { ownGroup?: boolean } = {}): Promise<Started> {
  const dataDir = await seededDataDir('svc-stop-')
  dirs.push(dataDir)
  const port = await freePort()
  const npm = spawn('npm', ['start'], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A terminal's foreground job: Ctrl-C signals the whole group.
    detached: options.ownGroup ?? false,
  })
  const output = collectOutput(npm)
  const exited = new Promise<void>((resolve) => npm.once('exit', () => resolve()))
  const s = { npm, port, output, exited }
  started.push(s)
  await waitUntil(() => output().includes('service ready'), 'the service to be ready', {
    timeoutMs: 60_000,
    details: output,
  })
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
    await waitUntil(async () => !(await accepts(s.port)), `port ${s.port} still open`, 5000)
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
    await waitUntil(async () => !(await accepts(s.port)), `port ${s.port} still open`, 10_000)
    // Its log lines may arrive through the pipe after the port has closed.
    await waitUntil(() => /"parentExited":true/.test(s.output()), 'the parent exit in the log', 5000)
    await waitUntil(() => s.output().includes('"msg":"stopped"'), 'the service to stop', 5000)
  })
})
