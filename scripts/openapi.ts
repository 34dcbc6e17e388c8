/**
 * npm run openapi: writes what is made from the service's OpenAPI documents
 * with the default configuration:
 * - docs/openapi.json, the /v1 document client generators read, and the
 *   TypeScript client's types made from it (packages/client/src/generated);
 * - the dashboard's types, made from /dashboard/api/openapi.json
 *   (web/src/generated/dashboard-api.ts), which its openapi-fetch client
 *   checks every path, parameter and body against.
 * The suite checks that the committed files are what the service serves
 * (test/docs/docs.openapi.test.ts).
 */
import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript'
import { buildApp } from '../src/app.ts'
import { DEFAULT_CONFIG } from '../src/config.ts'
import { openDatabase } from '../src/db/database.ts'
import { createMemoryRateLimiter } from '../src/http/rate-limit.ts'
import { createLocalStorage } from '../src/modules/uploads/storage/local.ts'

export const OPENAPI_FILE = 'docs/openapi.json'
export const CLIENT_TYPES_FILE = 'packages/client/src/generated/openapi.ts'
export const DASHBOARD_TYPES_FILE = 'web/src/generated/dashboard-api.ts'
const DASHBOARD_PREFIX = '/dashboard/api'

type Document = Record<string, unknown> & { paths: Record<string, Record<string, Operation>> }
type Operation = Record<string, unknown> & { parameters?: { in: string; name: string }[] }

/** The two documents as the service serves them with the default configuration. */
async function servedDocuments(): Promise<{ v1: Document; dashboard: Document }> {
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
    const get = async (url: string) => {
      const res = await app.inject({ method: 'GET', url })
      if (res.statusCode !== 200) throw new Error(`GET ${url} answered ${res.statusCode}: ${res.body}`)
      return res.json() as Document
    }
    return { v1: await get('/v1/openapi.json'), dashboard: await get(`${DASHBOARD_PREFIX}/openapi.json`) }
  } finally {
    await app.close()
    await db.destroy()
  }
}

/** What `openapi-typescript <document>` writes. */
async function types(document: Document): Promise<string> {
  return COMMENT_HEADER + astToString(await openapiTS(document as unknown as OpenAPI3))
}

/**
 * The dashboard's document as its client uses it: paths relative to
 * /dashboard/api (the client's base URL), and without the X-CSRF-Token
 * parameter, which the client adds to every call that changes something.
 */
function asDashboardClientSees(document: Document): Document {
  const paths = Object.fromEntries(
    Object.entries(document.paths).map(([path, operations]) => [
      path.slice(DASHBOARD_PREFIX.length),
      Object.fromEntries(
        Object.entries(operations).map(([method, operation]) => [
          method,
          { ...operation, parameters: operation.parameters?.filter((p) => p.name !== 'X-CSRF-Token') },
        ]),
      ),
    ]),
  )
  return { ...document, paths }
}

/** Every generated file, by path, as the committed files should hold it. */
export async function generateOpenApiFiles(): Promise<Record<string, string>> {
  const { v1, dashboard } = await servedDocuments()
  return {
    [OPENAPI_FILE]: `${JSON.stringify(v1, null, 2)}\n`,
    [CLIENT_TYPES_FILE]: await types(v1),
    [DASHBOARD_TYPES_FILE]: await types(asDashboardClientSees(dashboard)),
  }
}

if (import.meta.main) {
  for (const [file, content] of Object.entries(await generateOpenApiFiles())) {
    writeFileSync(file, content)
    console.log(`wrote ${file}`)
  }
}
