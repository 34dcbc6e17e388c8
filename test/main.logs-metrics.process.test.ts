import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { seededDataDir } from './helpers/databases.ts'
import { collectOutput, type ServiceProcess, startServiceProcess } from './helpers/service-process.ts'
import { waitUntil } from './helpers/wait.ts'

const hasScript = spawnSync('script', ['--version']).status === 0

/** What a service process tells its operator: its log lines and its metrics. */
describe('log format and metrics of the service process', () => {
  let dataDir: string
  before(async () => {
    dataDir = await seededDataDir('svc-logs-')
  })
  // The first start writes it into DATA_DIR.
  const operatorToken = async () => (await readFile(join(dataDir, 'operator-token'), 'utf8')).trim()
  after(() => rm(dataDir, { recursive: true, force: true }))

  const assertMetrics = (body: string) => {
    assert.match(body, /^db_pool_max_connections\{pool="api"\} 1$/m)
    assert.match(body, /^webhook_queue_attempts 0$/m)
    assert.match(body, /^process_cpu_user_seconds_total /m)
  }

  describe('with the defaults (stdout not a terminal, no METRICS_PORT)', () => {
    let service: ServiceProcess
    before(async () => {
      service = await startServiceProcess({ DATA_DIR: dataDir })
    })
    after(() => service?.child.kill('SIGKILL'))

    test('metrics on the API port with the operator token', async () => {
      const res = await fetch(`http://127.0.0.1:${service.port}/metrics`, {
        headers: { authorization: `Bearer ${await operatorToken()}` },
      })
      assert.equal(res.status, 200)
      assertMetrics(await res.text())
    })

    test('stdout not a terminal: one JSON object per line', async () => {
      service.child.kill('SIGTERM')
      await service.exited
      const lines = service.output().split('\n').filter(Boolean)
      const parsed = lines.map((line) => JSON.parse(line) as { msg: string; level: number })
      assert.ok(parsed.some((l) => l.msg === 'service ready' && l.level === 30))
      assert.ok(parsed.some((l) => l.msg === 'stopped'))
    })
  })

  test('with METRICS_PORT, metrics on that port only', async () => {
    const service = await startServiceProcess({ DATA_DIR: dataDir, METRICS_PORT: '0' })
    try {
      const onApi = await fetch(`http://127.0.0.1:${service.port}/metrics`, {
        headers: { authorization: `Bearer ${await operatorToken()}` },
      })
      assert.equal(onApi.status, 404)
      const port = /metrics at http:\/\/[^:]+:(\d+)\/metrics/.exec(service.output())?.[1]
      assert.ok(port, service.output())
      const res = await fetch(`http://127.0.0.1:${port}/metrics`)
      assert.equal(res.status, 200)
      assertMetrics(await res.text())
    } finally {
      service.child.kill('SIGTERM')
      await service.exited
    }
  })

  test('stdout a terminal: readable lines', { skip: !hasScript && 'needs script(1)' }, async () => {
    // script(1) runs the service on a pseudo-terminal, as a user's shell would.
    const child = spawn('script', ['-qefc', `${process.execPath} src/main.ts`, '/dev/null'], {
      env: { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    const output = collectOutput(child)
    const exited = new Promise((resolve) => child.once('exit', resolve))
    try {
      await waitUntil(() => output().includes('service ready'), 'the service to be ready', {
        timeoutMs: 60_000,
        details: output,
      })
    } catch (error) {
      child.kill('SIGKILL')
      throw error
    }
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
