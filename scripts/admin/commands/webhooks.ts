/** Commands for webhook deliveries and endpoints (replays). */
import { type Column, fields, relativeTime, table } from '../format.ts'
import { type Command, integer, type Json, more, query, required, str } from './command.ts'

const deliveryColumns: Column<Json>[] = [
  ['ID', (d) => d.id],
  ['EVENT', (d) => d.event_type],
  ['STATUS', (d) => d.status],
  ['ATTEMPTS', (d) => d.attempts],
  ['LAST ANSWER', (d) => d.response_status ?? d.error_code],
  ['CREATED', (d) => relativeTime(d.created_at)],
]

export const WEBHOOKS_COMMANDS: Command[] = [
  {
    name: 'deliveries list',
    args: [],
    summary: 'The webhook delivery log across organizations, newest first',
    example: 'deliveries list --org ORG_ID --status failed',
    options: {
      org: { type: 'string', value: 'ORG_ID', description: 'one organization' },
      endpoint: { type: 'string', value: 'ENDPOINT_ID', description: 'one endpoint' },
      status: { type: 'string', value: 'STATUS', description: 'pending, succeeded or failed' },
      'event-type': { type: 'string', value: 'TYPE', description: 'e.g. order.cancelled' },
      order: { type: 'string', value: 'ORDER_ID', description: "one order's events" },
      limit: { type: 'string', value: 'N', description: '1 to 100 (25)' },
      cursor: { type: 'string', value: 'CURSOR', description: 'the next page' },
    },
    async run(ctx) {
      const page = await ctx.call(
        'GET',
        `/webhook-deliveries${query({
          organization_id: str(ctx, 'org'),
          endpoint_id: str(ctx, 'endpoint'),
          status: str(ctx, 'status'),
          event_type: str(ctx, 'event-type'),
          order_id: str(ctx, 'order'),
          limit: integer(ctx, 'limit'),
          cursor: str(ctx, 'cursor'),
        })}`,
      )
      ctx.print(page, () => table(page.data, deliveryColumns, 'No deliveries.') + more(page))
    },
  },
  {
    name: 'deliveries show',
    args: ['DELIVERY_ID'],
    summary: 'One delivery with its attempts',
    example: 'deliveries show DELIVERY_ID',
    async run(ctx) {
      const { data } = await ctx.call('GET', `/webhook-deliveries/${ctx.args[0]}`)
      ctx.print(data, () => {
        const d = data.delivery
        const head = fields([
          ['Delivery', d.id],
          ['Event', `${d.event_type} (${d.event_id})`],
          ['Endpoint', d.endpoint_id],
          ['Status', d.status],
          ['Attempts', d.attempts],
          ['Next attempt', relativeTime(d.next_attempt_at)],
          ['Last error', d.error_message],
        ])
        const attempts = data.attempts as Json[]
        return `${head}\n\n${table(
          attempts,
          [
            ['#', (a) => a.attempt],
            ['STARTED', (a) => relativeTime(a.started_at)],
            ['ANSWER', (a) => a.response_status ?? a.error_code],
            ['MS', (a) => a.duration_ms],
          ],
          'No attempts yet.',
        )}`
      })
    },
  },
  {
    name: 'deliveries redeliver',
    args: ['DELIVERY_ID'],
    summary: 'Send the same event again, as a new delivery sent at once',
    example: 'deliveries redeliver DELIVERY_ID',
    async run(ctx) {
      const { delivery } = (await ctx.call('POST', `/webhook-deliveries/${ctx.args[0]}/redeliver`)).data
      ctx.print(
        delivery,
        () => `Queued delivery ${delivery.id} of ${delivery.event_type} (${delivery.status})`,
      )
    },
  },
  {
    name: 'endpoints list',
    args: ['ORG_ID'],
    summary: "An organization's webhook endpoints: health, event filters, secret rotation",
    example: 'endpoints list ORG_ID --env test',
    options: { env: { type: 'string', value: 'live|test', description: 'the environment (live)' } },
    async run(ctx) {
      const { data } = await ctx.call(
        'GET',
        `/organizations/${ctx.args[0]}/webhook-endpoints${query({ environment: str(ctx, 'env') })}`,
      )
      ctx.print(data, () =>
        table<Json>(
          data,
          [
            ['ID', (e) => e.id],
            ['URL', (e) => e.url],
            [
              'STATE',
              (e) =>
                e.is_active ? 'active' : `disabled${e.disabled_reason ? ` (${e.disabled_reason})` : ''}`,
            ],
            ['EVENTS', (e) => (e.enabled_events as string[]).join(',')],
            ['FAILURES', (e) => e.consecutive_failures],
            ['LAST SUCCESS', (e) => relativeTime(e.last_success_at)],
            ['ROTATION ENDS', (e) => relativeTime(e.secret_rotation_ends_at)],
          ],
          'No endpoints.',
        ),
      )
    },
  },
  {
    name: 'endpoints replay',
    args: ['ENDPOINT_ID'],
    summary: "Send an endpoint's events again from a time on (after an outage)",
    example: 'endpoints replay ENDPOINT_ID --since 2026-11-26T08:00:00Z --only-failed',
    options: {
      since: { type: 'string', value: 'ISO', description: 'events from this time on (required)' },
      until: { type: 'string', value: 'ISO', description: 'events before this time' },
      'event-types': { type: 'string', value: 'A,B', description: 'only these event types' },
      'only-failed': { type: 'boolean', description: 'only events whose delivery failed' },
    },
    async run(ctx) {
      const types = str(ctx, 'event-types')
      const until = str(ctx, 'until')
      const { replay } = (
        await ctx.call('POST', `/webhook-endpoints/${ctx.args[0]}/replay`, {
          since: required(ctx, 'since'),
          ...(until ? { until } : {}),
          ...(types ? { event_types: types.split(',').map((s) => s.trim()) } : {}),
          ...(ctx.options['only-failed'] ? { only_failed: true } : {}),
        })
      ).data
      ctx.print(
        replay,
        () =>
          `Replay ${replay.id}: ${replay.total} event${replay.total === 1 ? '' : 's'} queued (${replay.status})`,
      )
    },
  },
  {
    name: 'endpoints replay-status',
    args: ['ENDPOINT_ID'],
    summary: "The endpoint's latest replay and how far it got",
    example: 'endpoints replay-status ENDPOINT_ID',
    async run(ctx) {
      const { replay } = (await ctx.call('GET', `/webhook-endpoints/${ctx.args[0]}/replay`)).data
      ctx.print(replay, () =>
        fields([
          ['Replay', replay.id],
          ['Status', replay.status],
          ['Queued', `${replay.queued} of ${replay.total}`],
          ['Started', relativeTime(replay.created_at)],
        ]),
      )
    },
  },
]
