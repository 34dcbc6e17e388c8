import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import type { RouteOptions } from 'fastify'
import { createTestApp, OPERATOR_TOKEN, PUBLIC_BASE_URL } from '../helpers/app.ts'
import {
  cookieHeader,
  type DashboardClient,
  dashboardClient,
  memberOf,
  operatorOf,
} from '../helpers/dashboard.ts'
import { type Answer, assertError } from '../helpers/errors.ts'
import { collectRoutes } from '../helpers/openapi.ts'
import { sampleOf, variantsOf, withLoneSurrogate, withNul } from '../helpers/request-schemas.ts'
import { png } from '../helpers/uploads.ts'

/**
 * Every string of every request, on every surface, is text PostgreSQL can
 * store: a NUL (or, in a JSON body, a lone UTF-16 surrogate) in any query
 * parameter or body string is 422 validation_failed naming it, before any
 * query runs or any download starts. The routes and their schemas are read
 * from the app, so a route added later is walked too. In a path, where every
 * parameter is an id, such text is an id that cannot exist: 404.
 */

const { built: t, routes } = await collectRoutes(() => createTestApp())
after(() => t.close())

const SURFACES = ['/v1/', '/admin/v1/', '/dashboard/api/']
const apiRoutes = routes.filter((r) => SURFACES.some((surface) => r.url.startsWith(surface)))
const label = (r: RouteOptions) => `${r.method} ${r.url}`
// biome-ignore lint/suspicious/noExplicitAny: route schemas, read as JSON
const schemaOf = (r: RouteOptions): Record<string, any> => (r.schema ?? {}) as Record<string, any>

let testKey: string
let member: DashboardClient
let operator: DashboardClient
let visitor: DashboardClient
before(async () => {
  const tenant = await t.tenant()
  testKey = tenant.testKey
  member = (await memberOf(t, tenant.orgId, 'owner')).client
  operator = (await operatorOf(t)).client
  visitor = await dashboardClient(t)
})

/** The credentials each surface takes: a key, the operator token, a member's or an operator's session. */
function credentials(route: RouteOptions): Record<string, string> {
  if (route.url.startsWith('/v1/')) return { authorization: `Bearer ${testKey}` }
  if (route.url.startsWith('/admin/v1/')) return { authorization: `Bearer ${OPERATOR_TOKEN}` }
  const config = (route.config ?? {}) as { auth?: string; accounts?: string }
  const client = config.auth === 'none' ? visitor : config.accounts === 'operator' ? operator : member
  return { cookie: cookieHeader(client.cookies), origin: PUBLIC_BASE_URL, 'x-csrf-token': client.csrf }
}

/**
 * Calls a route: path parameters given or random UUIDs, the query given, and
 * the body given or the smallest valid one its schema allows. A stream (a
 * download, the listen stream) is read to its end or its failure, so a
 * download cut after its first line shows as such.
 */
async function call(
  route: RouteOptions,
  input: { params?: Record<string, string>; query?: Record<string, unknown>; body?: unknown } = {},
): Promise<Answer & { cut?: string }> {
  const path = route.url.replace(/:(\w+)/g, (_, name: string) =>
    encodeURIComponent(input.params?.[name] ?? randomUUID()),
  )
  const query = new URLSearchParams(input.query as Record<string, string>).toString()
  const body = 'body' in input ? input.body : schemaOf(route).body && sampleOf(schemaOf(route).body)
  const res = await t.app.inject({
    method: route.method as 'GET',
    url: query ? `${path}?${query}` : path,
    headers: {
      ...credentials(route),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    payloadAsStream: true,
  })
  const stream = res.stream()
  if (String(res.headers['content-type']).startsWith('text/event-stream')) {
    stream.destroy()
    return { statusCode: res.statusCode, headers: res.headers, body: '', cut: 'an event stream opened' }
  }
  const chunks: Buffer[] = []
  let cut: string | undefined
  try {
    for await (const chunk of stream) chunks.push(chunk as Buffer)
  } catch (error) {
    cut = String(error)
  }
  return {
    statusCode: res.statusCode,
    headers: res.headers,
    body: Buffer.concat(chunks).toString('utf8'),
    cut,
  }
}

/**
 * 422 validation_failed, complete, with an invalid_format entry on `field`
 * and no entry on anything else (but what holds it: a value of anyOf whose
 * other branches are not arrays says so too).
 */
function assertRefused(res: Answer & { cut?: string }, field: string, context: string) {
  assert.equal(res.cut, undefined, `${context}: the answer was cut (${res.body.slice(0, 200)})`)
  const error = assertError(res, 422, 'validation_failed', context)
  const entries: { code: string; field: string }[] = error.errors
  const listed = entries.map((e) => `${e.code} ${e.field}`)
  assert.ok(listed.includes(`invalid_format ${field}`), `${context}: entries ${listed}`)
  const others = entries.filter((e) => e.field !== field && !field.startsWith(`${e.field}.`))
  assert.deepEqual(others, [], `${context}: only ${field} is refused`)
}

const withQuery = apiRoutes.filter((r) => schemaOf(r).querystring)
const withBody = apiRoutes.filter((r) => schemaOf(r).body)
const withParams = apiRoutes.filter((r) => r.url.includes('/:'))

test('the walk reaches the strings of the issue, and strings at every depth of a body', () => {
  const walked = [
    ...withQuery.flatMap((r) =>
      variantsOf(schemaOf(r).querystring, withNul).map((v) => `${label(r)} ?${v.field}`),
    ),
    ...withBody.flatMap((r) => variantsOf(schemaOf(r).body, withNul).map((v) => `${label(r)} ${v.field}`)),
  ]
  for (const expected of [
    'GET /dashboard/api/requests ?error_code',
    'GET /dashboard/api/requests ?request_id',
    'GET /dashboard/api/requests ?order_id',
    'GET /dashboard/api/audit-log.csv ?actor',
    'GET /dashboard/api/operator/audit-log.csv ?actor',
    'POST /dashboard/api/orders/:order_id/changes customer.name',
    'POST /dashboard/api/orders/:order_id/changes items.0.personalization.key',
    'POST /dashboard/api/automation/rules conditions.0.value.0',
    'POST /v1/orders items.0.personalization',
  ])
    assert.ok(walked.includes(expected), expected)
})

describe('a NUL in a query parameter: 422 naming it, before any query or download', () => {
  for (const route of withQuery) {
    test(label(route), async () => {
      for (const { value, field } of variantsOf(schemaOf(route).querystring, withNul)) {
        const res = await call(route, { query: value as Record<string, unknown> })
        assertRefused(res, field, `${label(route)}?${field}=NUL`)
      }
    })
  }
})

describe('a NUL or a lone surrogate in a JSON body string: 422 naming it', () => {
  for (const route of withBody) {
    test(label(route), async () => {
      const schema = schemaOf(route).body
      for (const [what, bad] of [
        ['NUL', withNul],
        ['lone surrogate', withLoneSurrogate],
      ] as const) {
        for (const { value, field } of variantsOf(schema, bad)) {
          const res = await call(route, { body: value })
          assertRefused(res, field || 'body', `${label(route)} ${what} in ${field || 'a key'}`)
        }
      }
    })
  }
})

/** Bodies the service checks by hand, past what the schema says: a valid one, so that the path's id is looked up. */
const VALID_BODIES: Record<string, unknown> = {
  'PUT /dashboard/api/automation/rules/:rule_id': {
    name: 'Rush',
    actions: [{ type: 'priority', value: 'rush' }],
  },
}

/** Where a path with such text answers otherwise: the signed upload URL was not signed for it. */
const NOT_404: Record<string, [number, string]> = {
  'PUT /v1/uploads/:id/content': [403, 'upload_url_invalid'],
}

describe('a NUL in a path parameter: an id that cannot exist', () => {
  for (const route of withParams) {
    test(label(route), async () => {
      const [status, code] = NOT_404[label(route)] ?? [404, 'not_found']
      for (const [, name] of route.url.matchAll(/:(\w+)/g)) {
        const body = VALID_BODIES[label(route)]
        const res = await call(route, { params: { [name!]: '\u0000' }, ...(body ? { body } : {}) })
        const context = `${label(route)} with ${name}=NUL`
        assert.equal(res.cut, undefined, context)
        assertError(res, status, code, context)
      }
    })
  }
})

test('a filename is sanitized, not refused: a NUL or a lone surrogate becomes _ like any unusual character', async () => {
  const sanitized = withBody.flatMap((r) =>
    Object.entries((schemaOf(r).body?.properties ?? {}) as Record<string, { 'x-sanitized'?: boolean }>)
      .filter(([, sub]) => sub['x-sanitized'])
      .map(([name]) => `${label(r)} ${name}`),
  )
  assert.deepEqual(sanitized.sort(), [
    'POST /dashboard/api/operator/orders/:order_id/uploads filename',
    'POST /dashboard/api/orders/:order_id/uploads filename',
    'POST /v1/uploads filename',
  ])
  for (const [filename, expected] of [
    ['logo\u0000.png', 'logo_.png'],
    ['logo\ud800.png', 'logo_.png'],
  ]) {
    const slot = await t.api(testKey, 'POST', '/v1/uploads', { filename })
    assert.equal(slot.statusCode, 201, slot.body)
    assert.equal(slot.json().data.filename, expected)
  }
})

describe('the signed upload URL, checked by hand', () => {
  test('a NUL in its query is a URL the service did not sign (403); NUL bytes in the file are content', async () => {
    const slot = await t.api(testKey, 'POST', '/v1/uploads', { filename: 'logo.png' })
    assert.equal(slot.statusCode, 201, slot.body)
    const url = new URL(slot.json().data.upload_url)
    const file = png()
    assert.ok(file.includes(0), 'the file holds NUL bytes')
    for (const name of ['expires', 'signature']) {
      const bad = new URL(url)
      bad.searchParams.set(name, `${url.searchParams.get(name)}\u0000`)
      const res = await t.app.inject({ method: 'PUT', url: `${bad.pathname}${bad.search}`, payload: file })
      assertError(res, 403, 'upload_url_invalid', `${name} with a NUL`)
    }
    const put = await t.app.inject({ method: 'PUT', url: `${url.pathname}${url.search}`, payload: file })
    assert.equal(put.statusCode, 200, put.body)
    assert.equal(put.json().data.size_bytes, file.length)
  })
})

test('the published documents say it', async () => {
  for (const url of ['/v1/openapi.json', '/dashboard/api/openapi.json']) {
    const doc = (await t.app.inject({ method: 'GET', url })).json()
    assert.match(doc.info.description, /NUL character or a lone UTF-16 surrogate/, url)
  }
})
