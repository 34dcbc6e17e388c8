import assert from 'node:assert/strict'
import { readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { seededDataDir } from './helpers/databases.ts'
import { startServiceProcess } from './helpers/service-process.ts'

test('the service process serves its metrics on the API port with the operator token, or on METRICS_PORT', async () => {
  const dataDir = await seededDataDir('svc-metrics-')
  try {
    for (const metricsPort of [undefined, '0']) {
      const service = await startServiceProcess({
        DATA_DIR: dataDir,
        ...(metricsPort ? { METRICS_PORT: metricsPort } : {}),
      })
      try {
        const token = (await readFile(join(dataDir, 'operator-token'), 'utf8')).trim()
        const onApi = await fetch(`http://127.0.0.1:${service.port}/metrics`, {
          headers: { authorization: `Bearer ${token}` },
        })
        let body: string
        if (metricsPort) {
          assert.equal(onApi.status, 404)
          const port = /metrics at http:\/\/[^:]+:(\d+)\/metrics/.exec(service.output())?.[1]
          assert.ok(port, service.output())
          const res = await fetch(`http://127.0.0.1:${port}/metrics`)
          assert.equal(res.status, 200)
          body = await res.text()
        } else {
          assert.equal(onApi.status, 200)
          body = await onApi.text()
        }
        assert.match(body, /^db_pool_max_connections\{pool="api"\} 1$/m)
        assert.match(body, /^webhook_queue_attempts 0$/m)
        assert.match(body, /^process_cpu_user_seconds_total /m)
      } finally {
        service.child.kill('SIGTERM')
        await service.exited
      }
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true })
  }
})
