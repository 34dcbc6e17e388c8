import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { SCOPE_PERMITS, SCOPES } from '../../src/http/principal.ts'
import { type Doc, operations } from '../helpers/openapi.ts'

// The committed document: test/docs/docs.openapi.test.ts keeps it what the service serves.
const doc: Doc = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8'))

/** `METHOD /v1/path` of every keyed operation, by the scope its description names. */
function operationsByScope(): Map<string, string[]> {
  const byScope = new Map<string, string[]>()
  for (const { method, path, op } of operations(doc)) {
    const scope = /Scope: `([^`]+)`\./.exec(op.description ?? '')?.[1]
    if (scope) byScope.set(scope, [...(byScope.get(scope) ?? []), `${method.toUpperCase()} ${path}`])
  }
  return byScope
}

const covered = (cover: string, operation: string) =>
  cover.startsWith('/') ? operation.split(' ')[1]!.startsWith(cover) : cover === operation

test('each scope is described by exactly the operations that need it', () => {
  const byScope = operationsByScope()
  assert.deepEqual([...byScope.keys()].sort(), [...SCOPES].sort())
  for (const scope of SCOPES) {
    const { covers } = SCOPE_PERMITS[scope]
    const ops = byScope.get(scope)!
    for (const op of ops)
      assert.ok(
        covers.some((c) => covered(c, op)),
        `${op} needs ${scope}: say so`,
      )
    for (const c of covers)
      assert.ok(
        ops.some((op) => covered(c, op)),
        `${scope} covers ${c}, which needs it not`,
      )
    // No other scope's operation hides under a path this one claims.
    for (const [other, otherOps] of byScope) {
      if (other === scope) continue
      for (const op of otherOps)
        assert.ok(!covers.some((c) => covered(c, op)), `${op} needs ${other}, not ${scope}`)
    }
  }
  // No scope opens a way to cancel or change an order: /v1 has none.
  const orderWrites = operations(doc).filter(
    ({ method, path }) => path.startsWith('/v1/orders') && !['get', 'post'].includes(method),
  )
  assert.deepEqual(orderWrites, [])
  assert.doesNotMatch(JSON.stringify(SCOPE_PERMITS), /cancel orders|Create and cancel/i)
})

test('the document and docs/api.md state each scope as the dashboard labels it', () => {
  const scheme = doc.components.securitySchemes.apiKey.description as string
  const api = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8').replaceAll('`', '')
  for (const scope of SCOPES) {
    const { label, permits } = SCOPE_PERMITS[scope]
    assert.ok(scheme.includes(`- \`${scope}\` (${label}): ${permits}.`), `${scope} in the security scheme`)
    assert.ok(api.includes(`| ${scope} | ${label} | ${permits} |`), `${scope} in docs/api.md`)
  }
})

test("the dashboard's key form names each scope in the service's words", async () => {
  const web = await import('../../web/src/features/api-keys/api/api-keys.ts')
  assert.deepEqual(
    Object.fromEntries(Object.entries(web.SCOPE_PERMITS).map(([s, p]) => [s, [p.label, p.permits]])),
    Object.fromEntries(SCOPES.map((s) => [s, [SCOPE_PERMITS[s].label, SCOPE_PERMITS[s].permits]])),
  )
})
