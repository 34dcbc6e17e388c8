import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { parse } from 'yaml'
import { createMetrics, observePools } from '../../src/metrics.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { loopbackResolver } from '../helpers/https-receiver.ts'

const ROOT = join(import.meta.dirname, '..', '..')
const DASHBOARD = join(ROOT, 'ops', 'grafana', 'order-intake-service.json')
const RULES = join(ROOT, 'ops', 'prometheus', 'alert-rules.yml')

/** PromQL's words that are not metrics: functions, aggregations, keywords. */
const PROMQL_WORDS = new Set(
  'sum max min avg count rate irate increase histogram_quantile by without on ignoring group_left group_right bool and or unless offset le'.split(
    ' ',
  ),
)
/** Prometheus' own series, written by the scraper, not the service. */
const SCRAPER_SERIES = new Set(['up'])

/** The metric names a PromQL expression reads. */
export function metricsOf(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(?:by|without|on|ignoring)\s*\([^)]*\)/g, '')
    // Numbers and durations (0.99, offset 1h).
    .replace(/\b\d[\d.]*[a-z]*/gi, '')
  const names = new Set<string>()
  for (const match of bare.matchAll(/([A-Za-z_:][A-Za-z0-9_:]*)\s*(\()?/g)) {
    if (match[2] || PROMQL_WORDS.has(match[1]!) || /^\d/.test(match[1]!)) continue
    names.add(match[1]!)
  }
  return [...names]
}

/**
 * The monitoring an operator starts from (docs/operations.md): the Grafana
 * dashboard and the alert rules parse, and every query names a series the
 * service exports, as a scrape of its /metrics lists them.
 */
describe('the Grafana dashboard and the alert rules', () => {
  let t: TestApp
  /** Every series the service exports (a histogram's _bucket, _count and _sum). */
  const exported = new Set<string>()

  before(async () => {
    const metrics = createMetrics({ processMetrics: true })
    t = await createTestApp({
      metrics,
      resolver: loopbackResolver,
      webhookAllowPrivateCidrs: ['127.0.0.0/8'],
    })
    observePools(metrics, { api: t.testDb.poolStats })
    const res = await t.admin('GET', '/metrics')
    assert.equal(res.statusCode, 200)
    for (const [, name, type] of res.body.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
      if (type === 'histogram')
        for (const suffix of ['_bucket', '_count', '_sum']) exported.add(`${name}${suffix}`)
      else exported.add(name!)
    }
  })
  after(() => t.close())

  test('the metric names are read from the expressions', () => {
    assert.deepEqual(
      metricsOf(
        'histogram_quantile(0.99, sum by (le, route) (rate(http_request_duration_seconds_bucket{job=~"$job",status_code=~"5.."}[5m]))) / max(up offset 1h)',
      ),
      ['http_request_duration_seconds_bucket', 'up'],
    )
  })

  test('the dashboard parses, and every panel’s queries name series the service exports', () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8'))
    assert.equal(dashboard.uid, 'order-intake-service')
    const panels = dashboard.panels.filter((p: { type: string }) => p.type !== 'row')
    assert.ok(panels.length >= 12)
    const read = new Set<string>()
    for (const panel of panels) {
      assert.ok(panel.title && panel.description, `panel ${panel.id} has a title and a description`)
      assert.ok(panel.targets.length > 0, panel.title)
      for (const { expr } of panel.targets) {
        const names = metricsOf(expr)
        assert.ok(names.length > 0, expr)
        for (const name of names) {
          assert.ok(exported.has(name) || SCRAPER_SERIES.has(name), `${panel.title}: ${name} is not exported`)
          read.add(name)
        }
      }
    }
    // What an operator watches: requests, latency, intake, the queue, deliveries, endpoints, folds.
    for (const name of [
      'http_request_duration_seconds_count',
      'http_request_duration_seconds_bucket',
      'orders_created_total',
      'webhook_queue_attempts',
      'webhook_queue_oldest_due_age_seconds',
      'webhook_attempts_total',
      'webhook_endpoints_failing',
      'webhook_endpoints_disabled',
      'order_changes_unfolded',
    ]) {
      assert.ok(read.has(name), `the dashboard shows ${name}`)
    }
  })

  test('the alert rules parse: each names series the service exports, with a severity and a summary', () => {
    const rules = parse(readFileSync(RULES, 'utf8')).groups.flatMap((g: { rules: unknown[] }) => g.rules)
    const alerts = new Set<string>()
    for (const rule of rules) {
      assert.match(rule.alert, /^[A-Z][A-Za-z]+$/)
      assert.ok(['page', 'ticket'].includes(rule.labels.severity), rule.alert)
      assert.ok(rule.annotations.summary, rule.alert)
      for (const name of metricsOf(rule.expr)) {
        assert.ok(exported.has(name) || SCRAPER_SERIES.has(name), `${rule.alert}: ${name} is not exported`)
      }
      alerts.add(rule.alert)
    }
    for (const alert of [
      'WebhookQueueFallingBehind',
      'ServerErrorRateHigh',
      'WebhookEndpointDisabled',
      'InstanceNotReady',
    ])
      assert.ok(alerts.has(alert), alert)
  })

  test('the new gauges count what the queue holds: an endpoint disabled after its failures', async () => {
    const tenant = await t.tenant('Monitored Prints')
    const created = await t.api(tenant.liveKey, 'POST', '/v1/webhook-endpoints', {
      url: 'https://webhook.test/a',
    })
    assert.equal(created.statusCode, 201, created.body)
    const scrape = async () => (await t.admin('GET', '/metrics')).body
    assert.match(await scrape(), /^webhook_endpoints_disabled 0$/m)
    await t.db
      .updateTable('webhook_endpoints')
      .set({ is_active: false, disabled_reason: 'too_many_failures', disabled_at: new Date() })
      .execute()
    assert.match(await scrape(), /^webhook_endpoints_disabled 1$/m)
    assert.match(await scrape(), /^order_changes_unfolded \d+$/m)
  })
})
