import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Validator } from '@seriousme/openapi-schema-validator'
import { useTestApp } from '../../helpers/app.ts'

/** The dashboard API has a document of its own; the public one leaves it out. */
const t = useTestApp()

test('GET /dashboard/api/openapi.json is a valid OpenAPI 3.1 document of every dashboard route', async () => {
  const res = await t.app.inject({ method: 'GET', url: '/dashboard/api/openapi.json' })
  assert.equal(res.statusCode, 200)
  const doc = res.json()
  const validator = new Validator()
  const result = await validator.validate(structuredClone(doc))
  assert.deepEqual(result.errors, undefined)
  assert.equal(validator.version, '3.1')

  const operations = Object.entries(
    doc.paths as Record<string, Record<string, { operationId: string }>>,
  ).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`))
  for (const expected of [
    'GET /dashboard/api/session',
    'POST /dashboard/api/sign-in',
    'POST /dashboard/api/invitations/accept',
    'PATCH /dashboard/api/members/{member_id}',
    'GET /dashboard/api/audit-log',
  ]) {
    assert.ok(operations.includes(expected), `${expected} in ${operations.join(', ')}`)
  }
  const patch = doc.paths['/dashboard/api/members/{member_id}'].patch
  assert.deepEqual(patch.security, [{ session: [] }])
  assert.ok(patch.parameters.some((p: { name: string }) => p.name === 'X-CSRF-Token'))
  assert.deepEqual(
    Object.keys(patch.responses).sort(),
    ['200', '400', '401', '403', '404', '408', '409', '413', '417', '422', '429', '431', '500', '503'].sort(),
  )
  assert.equal(doc.components.securitySchemes.session.name, 'dashboard_session')

  // ErrorResponse.code lists the codes this API answers: its routes' (and an unknown path's), not /v1's own.
  const listed: string[] = doc.components.schemas.ErrorResponse.properties.error.properties.code.enum
  const answered = new Set(['not_found', 'method_not_allowed'])
  for (const methods of Object.values<Record<string, { responses: Record<string, { description: string }> }>>(
    doc.paths,
  )) {
    for (const op of Object.values(methods)) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue
        // `Error: code, code` (src/http/schemas.ts errorResponses).
        const codes = /^Error: (.+)$/.exec(response.description)?.[1]?.split(', ') ?? []
        assert.ok(codes.length > 0, response.description)
        for (const code of codes) answered.add(code)
      }
    }
  }
  assert.deepEqual([...listed].sort(), [...answered].sort())
  for (const code of ['session_required', 'csrf_failed', 'role_required', 'validation_failed']) {
    assert.ok(listed.includes(code), code)
  }
  for (const code of [
    'invalid_api_key',
    'insufficient_scope',
    'upload_url_invalid',
    'listen_limit_reached',
  ]) {
    assert.ok(!listed.includes(code), `${code} is /v1's`)
  }
})

test('the public document (/v1/openapi.json) has no dashboard route', async () => {
  const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json()
  assert.deepEqual(
    Object.keys(doc.paths).filter((p) => p.startsWith('/dashboard')),
    [],
  )
})
