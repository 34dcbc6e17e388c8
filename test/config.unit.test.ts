import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, test } from 'node:test'
import { ConfigError, DEFAULT_CONFIG, defaultText, ENV_NAMES, loadConfig } from '../src/config.ts'

function refused(env: Record<string, string>): string {
  try {
    loadConfig(env)
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err))
    return err.message
  }
  assert.fail(`accepted ${JSON.stringify(env)}`)
}

describe('loadConfig', () => {
  test('an invalid value is refused with the variable, the value and what it must be', () => {
    assert.equal(refused({ PORT: 'abc' }), 'PORT="abc": must be a whole number from 0 to 65535')
    assert.equal(
      refused({ RATE_LIMIT_PER_MINUTE: '0' }),
      'RATE_LIMIT_PER_MINUTE="0": must be a whole number from 1 to 10000000',
    )
    assert.equal(
      refused({ LOG_LEVEL: 'loud' }),
      'LOG_LEVEL="loud": must be one of fatal, error, warn, info, debug, trace, silent',
    )
    assert.match(refused({ WEBHOOK_WORKER: 'maybe' }), /^WEBHOOK_WORKER="maybe": must be on or off/)
    assert.match(refused({ WEBHOOK_RETRY_DELAYS: '1m,2x' }), /^WEBHOOK_RETRY_DELAYS="1m,2x": must be a comma/)
    assert.equal(
      refused({ PUBLIC_BASE_URL: 'not a url' }),
      'PUBLIC_BASE_URL="not a url": must be an absolute URL',
    )
    assert.equal(
      refused({ WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8, 10.0.0.0' }),
      'WEBHOOK_ALLOW_PRIVATE_CIDRS="127.0.0.0/8, 10.0.0.0": "10.0.0.0" is not a CIDR (an address, a slash and a prefix length: 10.0.0.0/8, fd00::/8)',
    )
    assert.deepEqual(
      loadConfig({ WEBHOOK_ALLOW_PRIVATE_CIDRS: ' 127.0.0.0/8,fd00::/8 ' }).webhookAllowPrivateCidrs,
      ['127.0.0.0/8', 'fd00::/8'],
    )
    assert.equal(
      refused({ WEBHOOK_TIMEOUT_MS: '20000', WEBHOOK_LEASE_MS: '15000' }),
      'WEBHOOK_LEASE_MS="15000": must be longer than WEBHOOK_TIMEOUT_MS (20000)',
    )
  })

  test('a whole number is digits only; a boolean is on/off, true/false, yes/no or 1/0 in any case', () => {
    for (const value of ['1.5', '1.0', '12abc', '1e3', '0x10', '-0', '+1', '99999999999999999999']) {
      assert.equal(
        refused({ PORT: value }),
        `PORT=${JSON.stringify(value)}: must be a whole number from 0 to 65535`,
      )
    }
    assert.equal(loadConfig({ PORT: '0080' }).port, 80)
    for (const [value, worker] of [
      ['ON', true],
      ['Yes', true],
      ['1', true],
      ['TRUE', true],
      ['Off', false],
      ['no', false],
      ['0', false],
      ['False', false],
    ] as const) {
      assert.equal(loadConfig({ WEBHOOK_WORKER: value }).webhookWorker, worker, value)
    }
    assert.equal(
      refused({ WEBHOOK_WORKER: 'y' }),
      'WEBHOOK_WORKER="y": must be on or off (also true/false, yes/no, 1/0)',
    )
  })

  test('TRUST_PROXY is off, a number of proxies, or proxy addresses and CIDRs; anything else is refused', () => {
    assert.equal(DEFAULT_CONFIG.trustProxy, false)
    assert.equal(loadConfig({ TRUST_PROXY: 'OFF' }).trustProxy, false)
    assert.equal(loadConfig({ TRUST_PROXY: ' 2 ' }).trustProxy, 2)
    assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.0/8, ::1,loopback' }).trustProxy, [
      '10.0.0.0/8',
      '::1',
      'loopback',
    ])
    const must =
      'must be off, a number of proxies from 1 to 32, or a comma-separated list of proxy addresses and CIDRs (10.0.0.0/8, ::1, loopback)'
    for (const value of ['0', '33', 'true', 'on', ',']) {
      assert.equal(refused({ TRUST_PROXY: value }), `TRUST_PROXY=${JSON.stringify(value)}: ${must}`)
    }
    for (const [value, entry] of [
      ['10.0.0.0/8, proxy.internal', 'proxy.internal'],
      ['10.0.0.0/33', '10.0.0.0/33'],
      ['0xa', '0xa'],
      ['10.0.0.0/8/1', '10.0.0.0/8/1'],
    ]) {
      assert.equal(
        refused({ TRUST_PROXY: value! }),
        `TRUST_PROXY=${JSON.stringify(value)}: "${entry}" is not an address, a CIDR or one of loopback, linklocal, uniquelocal`,
      )
    }
  })

  test('the first invalid variable in the schema is the one named', () => {
    assert.equal(
      refused({ LOG_LEVEL: 'loud', PORT: 'abc', WEBHOOK_WORKER: 'maybe' }),
      'PORT="abc": must be a whole number from 0 to 65535',
    )
  })

  test('traces are off unless a collector is named; OTEL_SDK_DISABLED and OTEL_TRACES_EXPORTER=none keep them off', () => {
    assert.equal(DEFAULT_CONFIG.tracing, undefined)
    const on = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }
    assert.deepEqual(loadConfig(on).tracing, {
      url: 'http://collector:4318/v1/traces',
      serviceName: 'order-intake-service',
      sampler: 'parentbased_always_on',
      ratio: 1,
    })
    assert.equal(
      loadConfig({ ...on, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/in' }).tracing?.url,
      'https://traces.example/in',
    )
    assert.equal(loadConfig({ ...on, OTEL_SDK_DISABLED: 'true' }).tracing, undefined)
    assert.equal(loadConfig({ ...on, OTEL_TRACES_EXPORTER: 'none' }).tracing, undefined)
    const sampled = loadConfig({
      ...on,
      OTEL_TRACES_SAMPLER: 'traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
    })
    assert.deepEqual([sampled.tracing?.sampler, sampled.tracing?.ratio], ['traceidratio', 0.25])
    assert.match(
      refused({ ...on, OTEL_TRACES_SAMPLER: 'sometimes' }),
      /^OTEL_TRACES_SAMPLER="sometimes": must be one of always_on/,
    )
    assert.equal(
      refused({ ...on, OTEL_TRACES_SAMPLER_ARG: '1.5' }),
      'OTEL_TRACES_SAMPLER_ARG="1.5": must be a ratio from 0 to 1',
    )
    assert.match(refused({ ...on, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }), /must be one of http\/json/)
    assert.equal(
      refused({ ...on, OTEL_EXPORTER_OTLP_HEADERS: '', OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' }),
      'OTEL_EXPORTER_OTLP_ENDPOINT="not a url": must be an absolute URL',
    )
  })

  test('a secret is taken as given, spaces included; blank is unset', () => {
    assert.equal(loadConfig({ OPERATOR_TOKEN: ' t0ken ' }).operatorToken, ' t0ken ')
    assert.equal(loadConfig({ OPERATOR_TOKEN: '' }).operatorToken, undefined)
  })

  test('a password in a URL is not repeated in the message', () => {
    const message = refused({ DATABASE_URL: 'mysql://app:s3cret@db/x' })
    assert.equal(message, 'DATABASE_URL="mysql://app:***@db/x": must be a postgres:// URL')
  })

  test('unset and blank variables take their defaults; values are trimmed', () => {
    const blank = loadConfig({ PORT: ' ', RATE_LIMIT_PER_MINUTE: '', WEBHOOK_WORKER: '' })
    assert.deepEqual(blank, DEFAULT_CONFIG)
    assert.equal(DEFAULT_CONFIG.port, 3000)
    assert.equal(DEFAULT_CONFIG.publicBaseUrl, 'http://localhost:3000')
    assert.equal(DEFAULT_CONFIG.webhookWorker, true)
    assert.deepEqual(
      DEFAULT_CONFIG.webhookRetryDelaysMs,
      [60, 300, 900, 3600, 10800, 21600, 43200, 86400].map((s) => s * 1000),
    )
    assert.equal(DEFAULT_CONFIG.metricsPort, undefined)
    const set = loadConfig({
      PORT: ' 8080 ',
      WEBHOOK_WORKER: 'off',
      WEBHOOK_RETRY_DELAYS: '10ms, 2s',
      WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8, ::1/128',
      PUBLIC_BASE_URL: 'https://api.example.com/',
      METRICS_PORT: '9464',
    })
    assert.equal(set.port, 8080)
    assert.equal(set.webhookWorker, false)
    assert.deepEqual(set.webhookRetryDelaysMs, [10, 2000])
    assert.deepEqual(set.webhookAllowPrivateCidrs, ['127.0.0.0/8', '::1/128'])
    assert.equal(set.publicBaseUrl, 'https://api.example.com')
    assert.equal(set.metricsPort, 9464)
  })
})

/**
 * The configuration table (docs/operations.md): every row whose first cell holds only
 * `UPPER_CASE` names. A row may name several variables; its default cell then
 * holds one default for all or one per variable, separated by commas.
 */
function documentedDefaults(): Map<string, string> {
  const normalize = (s: string) => s.replaceAll('`', '').replace(/\s+/g, ' ').trim()
  const defaults = new Map<string, string>()
  for (const line of readFileSync(new URL('../docs/operations.md', import.meta.url), 'utf8').split('\n')) {
    const cells = line.trim().split('|').slice(1, -1)
    if (cells.length < 2) continue
    const listed = cells[0]!.split(',').map((c) => c.trim())
    if (!listed.every((n) => /^`[A-Z][A-Z0-9_]*`$/.test(n))) continue
    const names = listed.map((n) => n.replaceAll('`', ''))
    const parts = names.length > 1 ? cells[1]!.split(',') : [cells[1]!]
    names.forEach((name, i) => {
      const value = normalize(parts.length === names.length ? parts[i]! : cells[1]!)
      assert.ok(!defaults.has(name), `${name} is listed twice in docs/operations.md`)
      defaults.set(name, value)
    })
  }
  return defaults
}

test("the configuration table of docs/operations.md names the schema's variables with the schema's defaults", () => {
  const documented = documentedDefaults()
  assert.deepEqual([...documented.keys()].sort(), [...ENV_NAMES].sort())
  for (const name of ENV_NAMES) assert.equal(documented.get(name), defaultText(name), name)
})
