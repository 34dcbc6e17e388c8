import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { generateOpenApiFile, OPENAPI_FILE } from '../../scripts/openapi.ts'

test(`${OPENAPI_FILE} is the document the service serves (npm run openapi rewrites it)`, async () => {
  const committed = readFileSync(OPENAPI_FILE, 'utf8')
  const generated = await generateOpenApiFile()
  assert.ok(committed === generated, `${OPENAPI_FILE} is out of date: run npm run openapi and commit it`)
  assert.equal(JSON.parse(committed).servers[0].url, 'http://localhost:3000')
})
