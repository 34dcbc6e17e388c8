import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { after, describe, test } from 'node:test'
import { createConfig, lintFromString } from '@redocly/openapi-core'
import spectralCore from '@stoplight/spectral-core'
import parsers from '@stoplight/spectral-parsers'
import rulesets from '@stoplight/spectral-rulesets'
import ts from 'typescript'
import {
  CLIENT_TYPES_FILE,
  DASHBOARD_TYPES_FILE,
  generateOpenApiFiles,
  OPENAPI_FILE,
} from '../../scripts/openapi.ts'
import { type Doc, operations, schemaChecker } from '../helpers/openapi.ts'

/** docs/openapi.json: what the service serves, as linters read it, and its code samples. */
describe('docs/openapi.json and the types made from it', () => {
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
})

describe('docs/openapi.json as third-party linters and generators read it', () => {
  // CommonJS packages: their named exports are read from the default one.
  const { Document, Spectral } = spectralCore

  /**
   * The committed document as third-party tools read it: Redocly's recommended
   * rules and Spectral's spectral:oas, the two linters integrators run. Any
   * error fails, and so does any warning not accepted here.
   */
  const FILE = 'docs/openapi.json'
  const source = readFileSync(FILE, 'utf8')

  test('Redocly (recommended rules) finds no error in docs/openapi.json', async () => {
    const config = await createConfig({ extends: ['recommended'] })
    const problems = await lintFromString({ source, absoluteRef: FILE, config })
    const line = (p: (typeof problems)[number]) =>
      `${p.ruleId} at ${p.location[0]?.pointer ?? '?'}: ${p.message}`
    assert.deepEqual(problems.filter((p) => p.severity === 'error').map(line), [])
    // The one warning accepted: the license names the operator's terms and has no page to link
    // (docs/decisions/2026-11-29-openapi-as-tools-read-it.md). Any other warning fails too.
    assert.deepEqual(
      problems.filter((p) => p.severity !== 'error').map((p) => `${p.ruleId} at ${p.location[0]?.pointer}`),
      ['info-license-strict at #/info/license'],
    )
  })

  test('Spectral (spectral:oas) finds no error in docs/openapi.json', async () => {
    const spectral = new Spectral()
    spectral.setRuleset({ extends: [[rulesets.oas as never, 'recommended']] })
    const results = await spectral.run(new Document(source, parsers.Json, FILE))
    const line = (r: (typeof results)[number]) => `${r.code} at /${r.path.join('/')}: ${r.message}`
    // Spectral's severities: 0 error, 1 warning, 2 information, 3 hint.
    assert.deepEqual(results.filter((r) => r.severity === 0).map(line), [])
    assert.deepEqual(results.map(line), [], 'no warning either')
  })

  test('no schema name collides in generated code: with a global of JavaScript or the DOM, or with the types generators name after operations', () => {
    const doc = JSON.parse(source)
    const globals = ['Error', 'Date', 'Object', 'Array', 'Promise', 'Response', 'Request', 'Headers']
    globals.push('File', 'Blob', 'Event', 'URL', 'Record', 'Map', 'Set', 'Symbol', 'JSON')
    // hey-api names an operation's types <OperationId>Data, ...Response(s), ...Error(s); orval similar.
    const operationIds = [...Object.values(doc.paths), ...Object.values(doc.webhooks)].flatMap((item) =>
      Object.values(item as Record<string, { operationId: string }>).map((op) => op.operationId),
    )
    const generated = operationIds.flatMap((id) =>
      ['Data', 'Response', 'Responses', 'Error', 'Errors', 'Body', 'Params'].map(
        (suffix) => `${id[0]!.toUpperCase()}${id.slice(1)}${suffix}`,
      ),
    )
    const names = Object.keys(doc.components.schemas)
    assert.ok(operationIds.includes('ping') && names.includes('PingEvent'), 'the document is read')
    assert.deepEqual(
      names.filter((n) => globals.includes(n) || generated.includes(n)),
      [],
    )
  })
})

describe('the x-codeSamples of docs/openapi.json', () => {
  /**
   * The x-codeSamples of docs/openapi.json (the document the service serves,
   * see the first describe above) as a reader copies them: every TypeScript sample
   * type-checks against the client in packages/client, and every curl command
   * calls a documented operation, the sample's own among them, with a body its
   * request schema accepts.
   */
  const doc: Doc = JSON.parse(readFileSync('docs/openapi.json', 'utf8'))
  const check = schemaChecker(doc)
  const base: string = doc.servers[0].variables.base_url.default
  const sampled = operations(doc).filter(({ op }) => op['x-codeSamples'])
  const sampleOf = (op: Doc, label: string): string =>
    op['x-codeSamples'].find((s: Doc) => s.label === label)?.source

  /** The main operations, which must have samples. */
  const MAIN = [
    'ping',
    'createOrder',
    'listOrders',
    'getOrder',
    'createUpload',
    'putUploadContent',
    'createWebhookEndpoint',
    'listWebhookEndpoints',
    'updateWebhookEndpoint',
    'deleteWebhookEndpoint',
    'testWebhookEndpoint',
    'listWebhookDeliveries',
    'getWebhookDelivery',
    'redeliverWebhookDelivery',
  ]

  test('the main operations have a curl and a TypeScript sample', () => {
    assert.deepEqual(sampled.map(({ op }) => op.operationId).sort(), [...MAIN].sort())
    for (const { op } of sampled) {
      assert.deepEqual(
        op['x-codeSamples'].map((s: Doc) => [s.lang, s.label]),
        [
          ['Shell', 'curl'],
          ['TypeScript', 'TypeScript client'],
        ],
        op.operationId,
      )
    }
  })

  describe('TypeScript samples', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-openapi-samples-'))
    after(() => rmSync(dir, { recursive: true, force: true }))

    /** Type errors of each source (by name) compiled against the client's sources, as its users' code is. */
    function typeErrors(sources: Record<string, string>): string[] {
      const files = Object.entries(sources).map(([name, source]) => {
        const file = join(dir, `${name}.ts`)
        writeFileSync(file, source)
        return file
      })
      const program = ts.createProgram(files, {
        strict: true,
        noEmit: true,
        noUncheckedIndexedAccess: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
        types: ['node'],
        typeRoots: [resolve('node_modules/@types')],
        allowImportingTsExtensions: true,
        skipLibCheck: true,
        paths: { '@order-intake/client': [resolve('packages/client/src/index.ts')] },
      })
      return ts.getPreEmitDiagnostics(program).map((d) => {
        const where = d.file
          ? `${d.file.fileName.slice(dir.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}`
          : ''
        return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`
      })
    }

    test('every one type-checks against the client; a wrong field or event type would not', () => {
      const sources = Object.fromEntries(
        sampled.map(({ op }) => [op.operationId, sampleOf(op, 'TypeScript client')]),
      )
      const create = sources.createWebhookEndpoint!
      assert.ok(create.includes("'order.production_failed'"))
      // Only the two wrong copies fail: an event type the service refuses, a field the client does not have.
      const errors = typeErrors({
        ...sources,
        wrongEvent: create.replace("'order.production_failed'", "'order.shipped'"),
        wrongField: sources.getOrder!.replace('const order =', 'const order: { id: number } ='),
      })
      assert.deepEqual(
        errors.map((e) => e.split(' ')[0]),
        ['wrongEvent.ts:7', 'wrongField.ts:5'],
        errors.join('\n'),
      )
    })
  })

  /** The words of a shell command line, quotes removed; it ends at an unquoted |, ), ; or the end. */
  function words(line: string): string[] {
    const out: string[] = []
    let word: string | undefined
    for (let i = 0; i < line.length; i++) {
      const ch = line[i]!
      if (ch === "'" || ch === '"') {
        const end = line.indexOf(ch, i + 1)
        word = (word ?? '') + line.slice(i + 1, end)
        i = end
      } else if (/\s/.test(ch) || '|);'.includes(ch)) {
        if (word !== undefined) out.push(word)
        word = undefined
        if (ch !== ' ' && ch !== '\t') break
      } else word = (word ?? '') + ch
    }
    if (word !== undefined) out.push(word)
    return out
  }

  interface CurlCall {
    method: string
    url: string
    headers: string[]
    data: string | undefined
  }

  /** Each curl command of a sample, with what it sends. */
  function curlCalls(source: string): CurlCall[] {
    const text = source.replaceAll('\\\n', ' ')
    return [...text.matchAll(/(?:^|[\s(])curl\s/g)].map((m) => {
      const args = words(text.slice(m.index + m[0].length))
      const call: CurlCall = { method: '', url: '', headers: [], data: undefined }
      let upload = false
      for (let i = 0; i < args.length; i++) {
        const arg = args[i]!
        if (arg === '-X') call.method = args[++i]!
        else if (arg === '-H') call.headers.push(args[++i]!)
        else if (arg === '-d' || arg === '--data') call.data = args[++i]!
        else if (arg === '--upload-file' || arg === '-T') upload = !!args[++i]
        else if (arg.startsWith('-'))
          assert.ok(['--fail', '-s'].includes(arg), `an option this test reads: ${arg}`)
        else call.url = arg
      }
      call.method ||= upload ? 'PUT' : call.data !== undefined ? 'POST' : 'GET'
      return call
    })
  }

  /** The documented path a URL of this service calls, or undefined. */
  function documentedPath(url: string): string | undefined {
    if (!url.startsWith(`${base}/`)) return undefined
    const path = new URL(url).pathname
    return Object.keys(doc.paths).find((p) => new RegExp(`^${p.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path))
  }

  test('every curl command calls a documented operation, the sample’s own among them, as documented', () => {
    for (const { method, path, op } of sampled) {
      const calls = curlCalls(sampleOf(op, 'curl'))
      assert.ok(calls.length > 0, op.operationId)
      const called: string[] = []
      for (const call of calls) {
        const where = `${op.operationId}: ${call.method} ${call.url}`
        // The upload PUT goes to upload_url as returned, never to a URL the sample builds.
        const target =
          call.url === '$UPLOAD_URL'
            ? '/v1/uploads/{id}/content'
            : (documentedPath(call.url) ?? 'undocumented')
        const called_ = doc.paths[target]?.[call.method.toLowerCase()]
        assert.ok(called_, `${where} is a documented operation`)
        called.push(`${call.method.toLowerCase()} ${target}`)
        const keyed = call.headers.includes('Authorization: Bearer $ORDER_INTAKE_API_KEY')
        assert.equal(keyed, called_.security.length > 0, `${where}: a key exactly where one is needed`)
        for (const name of new URL(call.url.replace('$UPLOAD_URL', base)).searchParams.keys()) {
          assert.ok(
            called_.parameters.some((p: Doc) => p.in === 'query' && p.name === name),
            `${where}: ${name}`,
          )
        }
        const body = called_.requestBody?.content['application/json']
        if (call.data !== undefined) {
          assert.ok(body, `${where} takes a JSON body`)
          assert.ok(call.headers.includes('Content-Type: application/json'), `${where}: sent as JSON`)
          assert.equal(check(body.schema, JSON.parse(call.data)), undefined, `${where}: the body is valid`)
        } else {
          assert.ok(!body || called_.requestBody.required === false, `${where}: no body needed`)
        }
      }
      assert.ok(
        called.includes(`${method} ${path}`),
        `${op.operationId}: calls ${method} ${path} (${called})`,
      )
    }
    // The upload: a slot with the key, then the bytes to its upload_url without one.
    const upload = curlCalls(sampleOf(doc.paths['/v1/uploads/{id}/content'].put, 'curl'))
    assert.deepEqual(
      upload.map((c) => [c.method, c.url, c.headers.length, c.data]),
      [
        ['POST', `${base}/v1/uploads`, 2, '{"filename": "mia-birthday.png"}'],
        ['PUT', '$UPLOAD_URL', 0, undefined],
      ],
    )
    assert.equal(documentedPath(`${base}/v1/order`), undefined, 'an undocumented path is told apart')
  })
})
