import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import type { PoolStats } from './db/database.ts'
import type { WebhookQueueStats } from './modules/webhooks/deliveries/queue-stats.repo.ts'

/** How a webhook attempt ended (the dispatcher's classification). */
export type AttemptOutcome = 'succeeded' | 'http_error' | 'timeout' | 'connection_error' | 'tls_error'

/** What the webhook dispatcher reports about each attempt. */
export interface WebhookObserver {
  attempted(outcome: AttemptOutcome, durationMs: number): void
}

/**
 * The service's Prometheus metrics, one registry per app. Counters are fed by
 * the HTTP hooks (src/http/metrics.ts) and the dispatcher's observer; the
 * queue and the connection pools are read when a scrape asks, the queue
 * without ever holding the scrape up for long.
 */
export function createMetrics(options: { processMetrics?: boolean } = {}) {
  const registry = new Registry()
  const registers = [registry]
  if (options.processMetrics) collectDefaultMetrics({ register: registry })

  const webhookAttempts = new Counter({
    name: 'webhook_attempts_total',
    help: 'Webhook delivery attempts by outcome.',
    labelNames: ['outcome'] as const,
    registers,
  })
  const webhookAttemptDuration = new Histogram({
    name: 'webhook_attempt_duration_seconds',
    help: 'Duration of webhook delivery attempts by outcome.',
    labelNames: ['outcome'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  })
  const webhookObserver: WebhookObserver = {
    attempted(outcome, durationMs) {
      webhookAttempts.inc({ outcome })
      webhookAttemptDuration.observe({ outcome }, durationMs / 1000)
    },
  }

  return {
    registry,
    httpRequestDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Duration of HTTP requests by route (its pattern) and status.',
      labelNames: ['method', 'route', 'status_code'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60],
      registers,
    }),
    ordersCreated: new Counter({
      name: 'orders_created_total',
      help: 'Orders created, by environment and source (api or shop).',
      labelNames: ['environment', 'source'] as const,
      registers,
    }),
    rateLimitRejections: new Counter({
      name: 'rate_limit_rejections_total',
      help: 'Requests refused with 429 rate_limited, by environment of the key.',
      labelNames: ['environment'] as const,
      registers,
    }),
    uploadSlots: new Counter({
      name: 'upload_slots_created_total',
      help: 'Upload slots (signed upload URLs) handed out, by environment.',
      labelNames: ['environment'] as const,
      registers,
    }),
    uploadsReceived: new Counter({
      name: 'uploads_received_total',
      help: 'Files received by the signed upload PUT (embedded storage).',
      registers,
    }),
    uploadBytes: new Counter({
      name: 'upload_received_bytes_total',
      help: 'Bytes of the files received by the signed upload PUT.',
      registers,
    }),
    uploadsRefused: new Counter({
      name: 'uploads_refused_total',
      help: 'Files refused, by reason (the error code): at the upload PUT or when an order references them.',
      labelNames: ['reason'] as const,
      registers,
    }),
    webhookObserver,
  }
}

export type Metrics = ReturnType<typeof createMetrics>

/** How long a scrape waits for fresh queue figures before it serves the last ones. */
export const QUEUE_READ_WAIT_MS = 250

/**
 * Queue gauges from the database, with one query per scrape (the registry
 * collects all gauges at once). A scrape never waits on the database longer
 * than `waitMs`: a read that takes longer goes on in the background, the
 * scrape gets the last figures read (NaN before the first), and
 * `metrics_stale_seconds` says how old they are. At most one read runs at a
 * time, so scrapes during an outage do not pile up queries.
 */
export function observeWebhookQueue(
  metrics: Metrics,
  read: () => Promise<WebhookQueueStats>,
  options: { waitMs?: number; now?: () => number } = {},
): void {
  const waitMs = options.waitMs ?? QUEUE_READ_WAIT_MS
  const now = options.now ?? Date.now
  let last: WebhookQueueStats | undefined
  // Before the first read the figures are as old as the process' watch over them.
  let readAt = now()
  let reading: Promise<void> | undefined
  let scraping: Promise<void> | undefined
  const refresh = () => {
    reading ??= read()
      .then(
        (stats) => {
          last = stats
          readAt = now()
        },
        () => {},
      )
      .finally(() => {
        reading = undefined
      })
    return reading
  }
  const current = async () => {
    scraping ??= new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, waitMs)
      timer.unref()
      void refresh().then(() => {
        clearTimeout(timer)
        resolve()
      })
    }).finally(() => {
      scraping = undefined
    })
    await scraping
    return last
  }
  const gauge = (name: string, help: string, value: (stats: WebhookQueueStats) => number) =>
    new Gauge({
      name,
      help,
      registers: [metrics.registry],
      async collect() {
        const stats = await current()
        this.set(stats ? value(stats) : Number.NaN)
      },
    })
  gauge('webhook_queue_attempts', 'Webhook attempts still to be made (the queue depth).', (s) => s.attempts)
  gauge('webhook_queue_due_attempts', 'Webhook attempts due now and not held by a worker.', (s) => s.due)
  gauge(
    'webhook_queue_oldest_due_age_seconds',
    'How long the longest-waiting due webhook attempt has been due.',
    (s) => s.oldestDueAgeSeconds,
  )
  gauge(
    'webhook_endpoints_failing',
    'Active webhook endpoints whose last attempt failed: one attempt at a time until one succeeds.',
    (s) => s.failingEndpoints,
  )
  gauge(
    'webhook_endpoints_disabled',
    'Webhook endpoints disabled after too many consecutive failures (not those deleted).',
    (s) => s.disabledEndpoints,
  )
  gauge(
    'order_changes_unfolded',
    'Order changes not yet folded into the statistics.',
    (s) => s.unfoldedChanges,
  )
  gauge(
    'order_changes_oldest_unfolded_age_seconds',
    'How long the oldest order change not yet folded has waited.',
    (s) => s.oldestUnfoldedAgeSeconds,
  )
  new Gauge({
    name: 'metrics_stale_seconds',
    help: 'Age of the figures read from the database (webhook_queue_*): near 0 when read for this scrape, growing while the database does not answer.',
    registers: [metrics.registry],
    async collect() {
      await current()
      this.set((now() - readAt) / 1000)
    },
  })
}

/** Connection gauges of database pools, named by their use (api, worker). */
export function observePools(metrics: Metrics, pools: Record<string, () => PoolStats>): void {
  const gauge = (name: string, help: string, values: (stats: PoolStats) => Record<string, number>) =>
    new Gauge({
      name,
      help,
      labelNames: ['pool', 'state'] as const,
      registers: [metrics.registry],
      collect() {
        for (const [pool, read] of Object.entries(pools)) {
          for (const [state, value] of Object.entries(values(read()))) {
            this.set(state ? { pool, state } : { pool }, value)
          }
        }
      },
    })
  gauge('db_pool_connections', 'Open connections of a database pool, by state.', (s) => ({
    busy: s.open - s.idle,
    idle: s.idle,
  }))
  gauge('db_pool_max_connections', 'Size of a database pool.', (s) => ({ '': s.max }))
  gauge('db_pool_waiting_queries', 'Queries waiting for a connection of a database pool.', (s) => ({
    '': s.waiting,
  }))
}

/** Listen streams (GET /v1/webhook-events/stream) open on this instance. */
export function observeListenStreams(metrics: Metrics, open: () => number): void {
  new Gauge({
    name: 'listen_streams_open',
    help: 'Listen streams (webhook events over server-sent events) open on this instance.',
    registers: [metrics.registry],
    collect() {
      this.set(open())
    },
  })
}
