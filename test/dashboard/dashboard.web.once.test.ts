import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { Validator } from '@seriousme/openapi-schema-validator'
import Fastify from 'fastify'
import { dashboardWebRoutes, WEB_DIST } from '../../src/dashboard/web.routes.ts'
import { useTestApp } from '../helpers/app.ts'
import { assertEncoded, decoded, getEncoded, pageFiles, wireBytes } from '../helpers/encodings.ts'
import { assertError } from '../helpers/errors.ts'

describe('the pages and their files', () => {
  /** /dashboard: the built app (npm ci builds it), its client routes, its hashed files. */
  const t = useTestApp()

  const get = (url: string) => t.app.inject({ method: 'GET', url })

  describe('the dashboard pages', () => {
    test('GET /dashboard is the app with a strict CSP whose nonce the page carries, fresh per response', async () => {
      const first = await get('/dashboard')
      const second = await get('/dashboard')
      assert.equal(first.statusCode, 200, first.body)
      assert.match(String(first.headers['content-type']), /^text\/html; charset=utf-8/)
      const csp = String(first.headers['content-security-policy'])
      const nonce = /'nonce-([^']+)'/.exec(csp)?.[1]
      assert.ok(nonce, csp)
      assert.ok(first.body.includes(`<meta name="csp-nonce" content="${nonce}" />`))
      assert.notEqual(second.headers['content-security-policy'], csp)
      for (const directive of [
        "default-src 'none'",
        "script-src 'self'",
        `style-src 'self' 'nonce-${nonce}'`,
        "connect-src 'self'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
      ]) {
        assert.ok(csp.split('; ').includes(directive), `${directive} in ${csp}`)
      }
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/)
      assert.equal(first.headers['cache-control'], 'no-store')
      assert.equal(first.headers['x-content-type-options'], 'nosniff')
      // No inline script: every script element loads a file of this origin.
      assert.doesNotMatch(first.body, /<script(?![^>]*\ssrc="\/dashboard\/assets\/)[^>]*>/)
      assert.doesNotMatch(first.body, /https?:\/\//, 'nothing from elsewhere')
    })

    test('client routes get the same app; the hashed files are cached for a year', async () => {
      const page = await get('/dashboard/members')
      assert.equal(page.statusCode, 200)
      assert.ok(page.headers['content-security-policy'])
      const deep = await get('/dashboard/invitation')
      assert.equal(deep.statusCode, 200)
      const files = [...page.body.matchAll(/(?:src|href)="(\/dashboard\/assets\/[^"]+)"/g)].map((m) => m[1]!)
      assert.ok(files.some((f) => f.endsWith('.js')) && files.some((f) => f.endsWith('.css')), files.join())
      for (const file of files) {
        const res = await get(file)
        assert.equal(res.statusCode, 200, file)
        assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable')
        assert.match(String(res.headers['content-type']), file.endsWith('.js') ? /javascript/ : /text\/css/)
      }
    })

    test('a missing file and an unknown API path are 404 in the error shape, not the app', async () => {
      for (const url of [
        '/dashboard/assets/nope.js',
        '/dashboard/assets/nested/nope.css',
        '/dashboard/api/nope',
        '/dashboard/api',
      ]) {
        const res = await get(url)
        assertError(res, 404, 'not_found', url)
        assert.equal(res.headers['content-security-policy'], undefined, url)
      }
    })

    describe('compressed files', () => {
      const load = (url: string, acceptEncoding?: string) => getEncoded(t.app, url, acceptEncoding)
      const original = (file: string) => readFileSync(join(WEB_DIST, file.slice('/dashboard/'.length)))

      test('the first load is under 350 kB on the wire to a browser, each file Brotli (but a tiny one), byte for byte the build', async (ctx) => {
        const page = await load('/dashboard', 'br, gzip')
        assert.equal(page.statusCode, 200)
        const files = pageFiles(page.body)
        assert.ok(files.filter((f) => f.endsWith('.js')).length >= 2, files.join())
        assert.ok(
          files.some((f) => f.endsWith('.css')),
          files.join(),
        )
        let total = wireBytes(page)
        let identity = 0
        for (const file of files) {
          const res = await load(file, 'br, gzip')
          // A file of a few dozen bytes (a tiny chunk) is no smaller compressed: it is sent as it is.
          assertEncoded(res, original(file).length < 200 ? undefined : 'br', file)
          assert.deepEqual(decoded(res), original(file), file)
          assert.match(String(res.headers['content-type']), file.endsWith('.js') ? /javascript/ : /text\/css/)
          assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable', file)
          assert.equal(res.headers['x-content-type-options'], 'nosniff', file)
          total += wireBytes(res)
          identity += original(file).length
        }
        ctx.diagnostic(`first load: ${total} bytes on the wire (the files ${identity} bytes as built)`)
        assert.ok(total < 350_000, `${total} bytes`)
        assert.ok(identity > 700_000, 'the build is what was measured')
      })

      test('a gzip-only client gets gzip; one without Accept-Encoding the file itself', async () => {
        const [script] = pageFiles((await load('/dashboard')).body).filter((f) => f.endsWith('.js'))
        const gz = await load(script!, 'gzip')
        assertEncoded(gz, 'gzip', script!)
        assert.deepEqual(decoded(gz), original(script!))
        for (const acceptEncoding of [undefined, 'identity', 'deflate']) {
          const plain = await load(script!, acceptEncoding)
          assertEncoded(plain, undefined, `${script} with ${acceptEncoding}`)
          assert.deepEqual(plain.rawPayload, original(script!))
          assert.equal(plain.headers['cache-control'], 'public, max-age=31536000, immutable')
          assert.equal(plain.headers['x-content-type-options'], 'nosniff')
        }
      })

      test('the copies are no files of their own; missing files and .. stay 404', async () => {
        const [script] = pageFiles((await load('/dashboard')).body).filter((f) => f.endsWith('.js'))
        for (const url of [
          `${script}.br`,
          `${script}.gz`,
          '/dashboard/assets/nope.js',
          '/dashboard/assets/..%2Findex.html',
          '/dashboard/assets/%2e%2e/%2e%2e/package.json',
        ]) {
          const res = await load(url, 'br, gzip')
          assertError(res, 404, 'not_found', url)
          assert.equal(res.headers['content-encoding'], undefined, url)
        }
      })

      test('the page itself goes uncompressed: about 1 kB, with a nonce of its own per answer', async () => {
        const page = await load('/dashboard', 'br, gzip')
        assert.equal(page.headers['content-encoding'], undefined)
        assert.ok(page.rawPayload.length < 1500, `${page.rawPayload.length} bytes`)
        assert.ok(page.headers['content-security-policy'])
      })
    })

    test('without a build, /dashboard says how to build it (503)', async () => {
      const empty = mkdtempSync(join(tmpdir(), 'svc-web-'))
      const app = Fastify()
      try {
        await app.register(dashboardWebRoutes({ dist: empty }))
        const res = await app.inject({ method: 'GET', url: '/dashboard' })
        assert.equal(res.statusCode, 503)
        assert.match(res.body, /npm ci/)
      } finally {
        await app.close()
        rmSync(empty, { recursive: true, force: true })
      }
    })
  })
})

describe('the dashboard OpenAPI document', () => {
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
      [
        '200',
        '400',
        '401',
        '403',
        '404',
        '408',
        '409',
        '413',
        '417',
        '422',
        '429',
        '431',
        '500',
        '503',
      ].sort(),
    )
    assert.equal(doc.components.securitySchemes.session.name, 'dashboard_session')

    // ErrorResponse.code lists the codes this API answers: its routes' (and an unknown path's), not /v1's own.
    const listed: string[] = doc.components.schemas.ErrorResponse.properties.error.properties.code.enum
    const answered = new Set(['not_found', 'method_not_allowed'])
    for (const methods of Object.values<
      Record<string, { responses: Record<string, { description: string }> }>
    >(doc.paths)) {
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
})
