import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { createConfig, lintFromString } from '@redocly/openapi-core'
import spectralCore from '@stoplight/spectral-core'
import parsers from '@stoplight/spectral-parsers'
import rulesets from '@stoplight/spectral-rulesets'

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
