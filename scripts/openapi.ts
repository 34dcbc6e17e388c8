/**
 * npm run openapi: writes the OpenAPI document of a service with the default
 * configuration to docs/openapi.json, the file client generators read. The
 * suite checks that the committed file is what the service serves
 * (test/docs/openapi.drift.test.ts).
 */
import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildApp } from '../src/app.ts'
import { DEFAULT_CONFIG } from '../src/config.ts'
import { openDatabase } from '../src/db/database.ts'
import { createMemoryRateLimiter } from '../src/http/rate-limit.ts'
import { createLocalStorage } from '../src/modules/uploads/storage/local.ts'

export const OPENAPI_FILE = 'docs/openapi.json'

/** The document as the service serves it with the default configuration, as the file holds it. */
export async function generateOpenApiFile(): Promise<string> {
  // Nothing is queried or stored: the routes only have to exist.
  const { db, listen } = await openDatabase({})
  const app = await buildApp({
    config: DEFAULT_CONFIG,
    db,
    listen,
    storage: createLocalStorage({ root: join(tmpdir(), 'openapi-never-written') }),
    clock: { now: () => new Date() },
    rateLimiter: createMemoryRateLimiter(DEFAULT_CONFIG.rateLimitPerMinute),
    operatorToken: 'unused',
  })
  try {
    const res = await app.inject({ method: 'GET', url: '/v1/openapi.json' })
    if (res.statusCode !== 200)
      throw new Error(`GET /v1/openapi.json answered ${res.statusCode}: ${res.body}`)
    return `${JSON.stringify(res.json(), null, 2)}\n`
  } finally {
    await app.close()
    await db.destroy()
  }
}

if (import.meta.main) {
  writeFileSync(OPENAPI_FILE, await generateOpenApiFile())
  console.log(`wrote ${OPENAPI_FILE}`)
}
