import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { rm } from 'node:fs/promises'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { seededDataDir } from './helpers/databases.ts'
import { collectOutput, startServiceProcess } from './helpers/service-process.ts'

const hasScript = spawnSync('script', ['--version']).status === 0

describe('log format of the service process', () => {
  let dataDir: string
  before(async () => {
    dataDir = await seededDataDir('svc-logs-')
  })
  after(() => rm(dataDir, { recursive: true, force: true }))

  test('stdout not a terminal: one JSON object per line', async () => {
    const service = await startServiceProcess({ DATA_DIR: dataDir })
    service.child.kill('SIGTERM')
    await service.exited
    const lines = service.output().split('\n').filter(Boolean)
    const parsed = lines.map((line) => JSON.parse(line) as { msg: string; level: number })
    assert.ok(parsed.some((l) => l.msg === 'service ready' && l.level === 30))
    assert.ok(parsed.some((l) => l.msg === 'stopped'))
  })

  test('stdout a terminal: readable lines', { skip: !hasScript && 'needs script(1)' }, async () => {
    // script(1) runs the service on a pseudo-terminal, as a user's shell would.
    const child = spawn('script', ['-qefc', `${process.execPath} src/main.ts`, '/dev/null'], {
      env: { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    const output = collectOutput(child)
    const exited = new Promise((resolve) => child.once('exit', resolve))
    const deadline = Date.now() + 60_000
    while (!output().includes('service ready') && Date.now() < deadline) await sleep(100)
    child.stdin.write('\x03') // Ctrl-C
    await exited
    // biome-ignore lint/suspicious/noControlCharactersInRegex: colours of the terminal
    const plain = output().replace(/\x1b\[[0-9;]*m/g, '')
    assert.match(plain, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: service ready\r?$/m)
    assert.match(plain, /^\s+webhook_worker: "on"\r?$/m)
    assert.match(plain, /INFO: stopped/)
    assert.doesNotMatch(plain, /^\{/m)
  })
})
