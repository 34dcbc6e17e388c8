import assert from 'node:assert/strict'
import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { seededDataDir } from './helpers/databases.ts'
import { callService, spawnService, startServiceProcess } from './helpers/service-process.ts'

const TOKEN = 'op_data_dir_lock_test_token'

function embedded(dataDir: string) {
  return { DATA_DIR: dataDir, DATABASE_URL: '', OPERATOR_TOKEN: TOKEN, WEBHOOK_WORKER: 'off' }
}

const admin = (port: number, method: string, path: string, body?: unknown) =>
  callService(port, TOKEN, method, `/admin/v1${path}`, body)

describe('one process per DATA_DIR (embedded database)', () => {
  let dataDir: string
  before(async () => {
    dataDir = await seededDataDir('svc-lock-')
  })
  after(() => rmSync(dataDir, { recursive: true, force: true }))

  test('a second process on the same DATA_DIR refuses to start, naming DATA_DIR and the first pid', async () => {
    const first = await startServiceProcess(embedded(dataDir))
    try {
      const created = await admin(first.port, 'POST', '/organizations', { name: 'First' })
      assert.equal(created.status, 201)

      const second = spawnService(embedded(dataDir))
      const code = await Promise.race([second.exited, sleep(30_000, 'still running', { ref: false })])
      if (code === 'still running') second.child.kill('SIGKILL')
      assert.equal(code, 3, second.output())
      assert.ok(second.output().includes(dataDir), second.output())
      assert.ok(second.output().includes(`pid ${first.child.pid}`), second.output())
      assert.doesNotMatch(second.output(), /service ready/)

      // The first process is untouched and still sees its data.
      const list = await admin(first.port, 'GET', '/organizations')
      assert.equal(list.status, 200)
      assert.deepEqual(
        list.body.data.map((o: { name: string }) => o.name),
        ['First'],
      )
    } finally {
      first.child.kill('SIGKILL')
      await first.exited
    }
  })

  test('after kill -9 of the holder, the next start takes DATA_DIR at once and finds the acknowledged data', async () => {
    // The previous test ended with kill -9: its lock file is still there.
    assert.ok(existsSync(join(dataDir, 'service.lock')))
    const started = Date.now()
    const next = await startServiceProcess(embedded(dataDir))
    try {
      assert.ok(Date.now() - started < 30_000)
      const list = await admin(next.port, 'GET', '/organizations')
      assert.deepEqual(
        list.body.data.map((o: { name: string }) => o.name),
        ['First'],
      )
      // A clean stop gives DATA_DIR back.
      next.child.kill('SIGTERM')
      assert.equal(await next.exited, 0, next.output())
      assert.equal(existsSync(join(dataDir, 'service.lock')), false)
    } finally {
      next.child.kill('SIGKILL')
    }
  })
})
