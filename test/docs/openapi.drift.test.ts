import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import {
  CLIENT_TYPES_FILE,
  DASHBOARD_TYPES_FILE,
  generateOpenApiFiles,
  OPENAPI_FILE,
} from '../../scripts/openapi.ts'

test('the OpenAPI document and the types made from it are what the service serves (npm run openapi rewrites them)', async () => {
  const generated = await generateOpenApiFiles()
  assert.deepEqual(
    Object.keys(generated).sort(),
    [CLIENT_TYPES_FILE, OPENAPI_FILE, DASHBOARD_TYPES_FILE].sort(),
  )
  for (const [file, content] of Object.entries(generated)) {
    assert.ok(
      readFileSync(file, 'utf8') === content,
      `${file} is out of date: run npm run openapi and commit it`,
    )
  }
  assert.equal(
    JSON.parse(generated[OPENAPI_FILE]!).servers[0].variables.base_url.default,
    'http://localhost:3000',
  )
  // The dashboard's client sees paths below its base URL and adds the CSRF header itself.
  const dashboard = generated[DASHBOARD_TYPES_FILE]!
  assert.ok(/^ {4}"\/orders\/\{order_id\}": \{$/m.test(dashboard), 'paths below /dashboard/api')
  assert.ok(!dashboard.includes('"/dashboard/api/'), 'no path keeps the prefix')
  assert.ok(!/"X-CSRF-Token"\??:/.test(dashboard), 'no call has to pass the CSRF header')
})
