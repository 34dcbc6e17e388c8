/**
 * The admin CLI's commands: one per operator API operation (/admin/v1), each
 * with its usage, summary, example and options, and its human output.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { type Column, fields, relativeTime, table } from './format.ts'

const ALL_SCOPES = ['orders:read', 'orders:write', 'files:write', 'webhooks:manage']

// biome-ignore lint/suspicious/noExplicitAny: answers of the service, read field by field
export type Json = any

/** What a command gets: its arguments and options, the service, and the output. */
export interface RunContext {
  args: string[]
  options: Record<string, string | boolean | undefined>
  /** The operator API; an error answer ends the CLI with exit code 1. */
  call(method: string, path: string, body?: unknown): Promise<Json>
  /** The raw answer of a download. */
  download(path: string): Promise<{ bytes: Buffer; contentType: string; filename: string | undefined }>
  /** The answer as JSON with --json, else the human text. */
  print(json: unknown, human: () => string): void
  /** A note for a person (stderr): never part of --json output. */
  note(message: string): void
  baseUrl: string
  usageError(message: string): never
}

export interface OptionSpec {
  type: 'string' | 'boolean'
  /** The value's placeholder in help, for string options. */
  value?: string
  description: string
}

export interface Command {
  /** The words that name it: `keys create`. */
  name: string
  /** Positional arguments; a trailing `?` makes one optional. */
  args: string[]
  summary: string
  example: string
  options?: Record<string, OptionSpec>
  run(ctx: RunContext): Promise<void>
}

const orgColumns: Column<Json>[] = [
  ['ID', (o) => o.id],
  ['NAME', (o) => o.name],
  ['CREATED', (o) => relativeTime(o.created_at)],
]

const keyColumns: Column<Json>[] = [
  ['ID', (k) => k.id],
  ['ENV', (k) => k.environment],
  ['PREFIX', (k) => k.key_prefix],
  ['NAME', (k) => k.name],
  ['SCOPES', (k) => k.scopes.join(',')],
  ['STATE', (k) => keyState(k)],
  ['CREATED', (k) => relativeTime(k.created_at)],
]

function keyState(k: Json): string {
  if (k.revoked_at) return `revoked ${relativeTime(k.revoked_at)}`
  if (k.expires_at && Date.parse(k.expires_at) <= Date.now()) return 'expired'
  if (k.expires_at) return `active, expires ${relativeTime(k.expires_at)}`
  return 'active'
}

const deliveryColumns: Column<Json>[] = [
  ['ID', (d) => d.id],
  ['EVENT', (d) => d.event_type],
  ['STATUS', (d) => d.status],
  ['ATTEMPTS', (d) => d.attempts],
  ['LAST ANSWER', (d) => d.response_status ?? d.error_code],
  ['CREATED', (d) => relativeTime(d.created_at)],
]

const more = (page: { next_cursor: string | null }) =>
  page.next_cursor ? `\nMore: add --cursor ${page.next_cursor}` : ''

function orderText(o: Json): string {
  const po = o.production_order
  const head = fields([
    ['Order', o.id],
    ['Number', o.order_number],
    ['External id', o.external_order_id],
    ['Organization', o.organization_id],
    ['Source', o.source],
    ['Environment', o.is_test ? 'test' : 'live'],
    ['Status', o.status],
    [
      'Production order',
      po ? `${po.id} (${po.status}${po.produced_by_partner ? ', by partner' : ''})` : 'none',
    ],
    ['Created', relativeTime(o.created_at)],
    ['Updated', relativeTime(o.updated_at)],
  ])
  const items = table(o.items as Json[], [
    ['ITEM', (i) => i.id],
    ['SKU', (i) => i.sku],
    ['NAME', (i) => i.name],
    ['QTY', (i) => i.quantity],
    ['JOB', (i) => i.production_job?.id],
    ['JOB STATUS', (i) => i.production_job?.status],
    ['FILES', (i) => (i.files ?? []).length],
  ])
  return `${head}\n\n${items}`
}

const orderListColumns: Column<Json>[] = [
  ['ID', (o) => o.id],
  ['NUMBER', (o) => o.order_number],
  ['EXTERNAL ID', (o) => o.external_order_id],
  ['ENV', (o) => (o.is_test ? 'test' : 'live')],
  ['SOURCE', (o) => o.source],
  ['STATUS', (o) => o.status],
  ['PRODUCTION', (o) => o.production_order?.status],
  ['ITEMS', (o) => o.items?.length],
  ['UPDATED', (o) => relativeTime(o.updated_at)],
]

/** A new invitation: its link (shown once) and how to revoke it. */
function invitationText(data: Json, what: string, revoke: string): string {
  const role = data.invitation.role ? ` (${data.invitation.role})` : ''
  return [
    `${what} for ${data.invitation.email}${role}, valid until ${data.invitation.expires_at} (${relativeTime(data.invitation.expires_at)}):`,
    `  ${data.url}`,
    '',
    'The link is shown once and works once: pass it on to set the password and sign in.',
    `Id: ${data.invitation.id} (to revoke it: npm run admin -- ${revoke} ${data.invitation.id})`,
  ].join('\n')
}

const invitationColumns: Column<Json>[] = [
  ['ID', (i) => i.id],
  ['EMAIL', (i) => i.email],
  ['ROLE', (i) => i.role],
  ['CREATED', (i) => relativeTime(i.created_at)],
  ['EXPIRES', (i) => relativeTime(i.expires_at)],
]

function required(ctx: RunContext, name: string): string {
  const value = ctx.options[name]
  if (typeof value !== 'string' || value === '') ctx.usageError(`--${name} is required`)
  return value
}

function integer(ctx: RunContext, name: string): number | undefined {
  const value = ctx.options[name]
  if (value === undefined) return undefined
  if (typeof value !== 'string' || !/^\d+$/.test(value)) ctx.usageError(`--${name} takes a whole number`)
  return Number(value)
}

function query(params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v))
  const s = q.toString()
  return s ? `?${s}` : ''
}

const str = (ctx: RunContext, name: string) => {
  const v = ctx.options[name]
  return typeof v === 'string' ? v : undefined
}

export const COMMANDS: Command[] = [
  {
    name: 'bootstrap',
    args: [],
    summary: 'An organization with a test and a live key carrying every scope (first start)',
    example: 'bootstrap --name "Acme Prints"',
    options: { name: { type: 'string', value: 'NAME', description: 'the organization (My organization)' } },
    async run(ctx) {
      const existing = (await ctx.call('GET', '/organizations')).data as Json[]
      if (existing.length > 0) {
        const names = existing.map((o) => o.name).join(', ')
        ctx.note(
          `Warning: ${existing.length} organization(s) already exist (${names}). bootstrap creates another one ` +
            'with new keys; to add keys to an existing organization use `keys create ORG_ID --env test|live`.',
        )
      }
      const { organization } = (
        await ctx.call('POST', '/organizations', { name: str(ctx, 'name') ?? 'My organization' })
      ).data
      const keys: Record<string, string> = {}
      for (const environment of ['test', 'live']) {
        const created = await ctx.call('POST', `/organizations/${organization.id}/api-keys`, {
          environment,
          scopes: ALL_SCOPES,
          name: `${environment} key (bootstrap)`,
        })
        keys[environment] = created.data.key
      }
      ctx.print({ organization, test_key: keys.test, live_key: keys.live }, () =>
        [
          `Organization: ${organization.name} (${organization.id})`,
          `Test key:     ${keys.test}`,
          `Live key:     ${keys.live}`,
          '',
          'The keys are shown once; store them now. Try:',
          `  curl -H "Authorization: Bearer ${keys.test}" ${ctx.baseUrl}/v1/ping`,
        ].join('\n'),
      )
    },
  },
  {
    name: 'organizations list',
    args: [],
    summary: 'Every organization',
    example: 'organizations list',
    async run(ctx) {
      const { data } = await ctx.call('GET', '/organizations')
      ctx.print(data, () => table(data, orgColumns, 'No organizations yet: try `bootstrap`.'))
    },
  },
  {
    name: 'organizations create',
    args: ['NAME'],
    summary: 'A new organization (no keys: see keys create, invitations create)',
    example: 'organizations create "Acme Prints"',
    async run(ctx) {
      const { organization } = (await ctx.call('POST', '/organizations', { name: ctx.args[0] })).data
      ctx.print(organization, () => `Created organization ${organization.name} (${organization.id})`)
    },
  },
  {
    name: 'keys list',
    args: ['ORG_ID'],
    summary: "An organization's API keys, newest first",
    example: 'keys list ORG_ID',
    async run(ctx) {
      const { data } = await ctx.call('GET', `/organizations/${ctx.args[0]}/api-keys`)
      ctx.print(data, () => table(data, keyColumns, 'No keys.'))
    },
  },
  {
    name: 'keys create',
    args: ['ORG_ID'],
    summary: 'A new API key; the key itself is shown once',
    example: 'keys create ORG_ID --env live --scopes orders:read,orders:write --name "Shop sync"',
    options: {
      env: { type: 'string', value: 'test|live', description: 'the environment (required)' },
      scopes: { type: 'string', value: 'A,B', description: `comma-separated (all: ${ALL_SCOPES.join(',')})` },
      name: { type: 'string', value: 'NAME', description: 'a label' },
      'expires-at': { type: 'string', value: 'ISO', description: 'an expiry, e.g. 2027-01-01T00:00:00Z' },
    },
    async run(ctx) {
      const scopes = str(ctx, 'scopes')
      const expires = str(ctx, 'expires-at')
      const name = str(ctx, 'name')
      const created = (
        await ctx.call('POST', `/organizations/${ctx.args[0]}/api-keys`, {
          environment: required(ctx, 'env'),
          scopes: scopes ? scopes.split(',').map((s) => s.trim()) : ALL_SCOPES,
          ...(name ? { name } : {}),
          ...(expires ? { expires_at: expires } : {}),
        })
      ).data
      ctx.print(created, () =>
        [
          fields([
            ['Key id', created.api_key.id],
            ['Environment', created.api_key.environment],
            ['Scopes', created.api_key.scopes.join(', ')],
            ['Expires', created.api_key.expires_at ?? 'never'],
          ]),
          '',
          `Key: ${created.key}`,
          'It is shown once; store it now.',
        ].join('\n'),
      )
    },
  },
  {
    name: 'keys revoke',
    args: ['KEY_ID'],
    summary: 'Revoke a key at once (a second revocation keeps the first time)',
    example: 'keys revoke KEY_ID',
    async run(ctx) {
      const { data } = await ctx.call('DELETE', `/api-keys/${ctx.args[0]}`)
      ctx.print(data, () => `Revoked key ${data.id} (${relativeTime(data.revoked_at)})`)
    },
  },
  {
    name: 'products list',
    args: ['ORG_ID'],
    summary: "An organization's products",
    example: 'products list ORG_ID',
    async run(ctx) {
      const { data } = await ctx.call('GET', `/organizations/${ctx.args[0]}/products`)
      ctx.print(data, () =>
        table<Json>(
          data,
          [
            ['ID', (p) => p.id],
            ['SKU', (p) => p.sku],
            ['NAME', (p) => p.name],
            ['CREATED', (p) => relativeTime(p.created_at)],
          ],
          'No products.',
        ),
      )
    },
  },
  {
    name: 'products create',
    args: ['ORG_ID', 'SKU', 'NAME'],
    summary: "A product; the organization's items with this sku link to it",
    example: 'products create ORG_ID MUG-01 "Photo mug"',
    async run(ctx) {
      const [org, sku, name] = ctx.args
      const { product } = (await ctx.call('POST', `/organizations/${org}/products`, { sku, name })).data
      ctx.print(product, () => `Created product ${product.sku} "${product.name}" (${product.id})`)
    },
  },
  {
    name: 'orders list',
    args: ['ORG_ID'],
    summary: "An organization's orders, newest first",
    example: 'orders list ORG_ID --env live --limit 20',
    options: {
      env: { type: 'string', value: 'test|live', description: 'one environment only' },
      limit: { type: 'string', value: 'N', description: '1 to 100 (50)' },
      cursor: { type: 'string', value: 'CURSOR', description: 'the next page, as the previous one said' },
    },
    async run(ctx) {
      const page = await ctx.call(
        'GET',
        `/organizations/${ctx.args[0]}/orders${query({
          environment: str(ctx, 'env'),
          limit: integer(ctx, 'limit'),
          cursor: str(ctx, 'cursor'),
        })}`,
      )
      ctx.print(page, () => table(page.data, orderListColumns, 'No orders.') + more(page))
    },
  },
  {
    name: 'orders show',
    args: ['ORDER_ID'],
    summary: "An order as the operator sees it: production order, each item's job, files",
    example: 'orders show ORDER_ID',
    async run(ctx) {
      const { order } = (await ctx.call('GET', `/orders/${ctx.args[0]}`)).data
      ctx.print(order, () => orderText(order))
    },
  },
  {
    name: 'orders file',
    args: ['ORDER_ID', 'UPLOAD_ID'],
    summary: "Download one of an order's files",
    example: 'orders file ORDER_ID UPLOAD_ID --out artwork.png',
    options: { out: { type: 'string', value: 'PATH', description: 'where to write it (required)' } },
    async run(ctx) {
      const out = required(ctx, 'out')
      const file = await ctx.download(`/orders/${ctx.args[0]}/files/${ctx.args[1]}`)
      writeFileSync(out, file.bytes)
      const summary = {
        path: out,
        bytes: file.bytes.length,
        content_type: file.contentType,
        filename: file.filename,
      }
      ctx.print(summary, () => `Wrote ${file.bytes.length} bytes (${file.contentType}) to ${out}`)
    },
  },
  {
    name: 'production status',
    args: ['PRODUCTION_ORDER_ID', 'STATUS'],
    summary: 'Set a production order to pending, in_progress, completed, failed or cancelled',
    example: 'production status PRODUCTION_ORDER_ID in_progress',
    async run(ctx) {
      const po = (await ctx.call('POST', `/production-orders/${ctx.args[0]}/status`, { status: ctx.args[1] }))
        .data.production_order
      ctx.print(po, () => `Production order ${po.id} is ${po.status}`)
    },
  },
  {
    name: 'production complete-job',
    args: ['PRODUCTION_JOB_ID'],
    summary: "Complete one item's production job",
    example: 'production complete-job PRODUCTION_JOB_ID',
    async run(ctx) {
      const job = (await ctx.call('POST', `/production-jobs/${ctx.args[0]}/complete`)).data.production_job
      ctx.print(job, () => `Job ${job.id} (item ${job.order_item_id}) is ${job.status}`)
    },
  },
  {
    name: 'production partner',
    args: ['PRODUCTION_ORDER_ID', 'on|off'],
    summary: 'Mark a production order as produced by a partner (on) or not (off)',
    example: 'production partner PRODUCTION_ORDER_ID on',
    async run(ctx) {
      const flag = ctx.args[1]
      if (flag !== 'on' && flag !== 'off') ctx.usageError('production partner takes on or off')
      const po = (
        await ctx.call('POST', `/production-orders/${ctx.args[0]}/partner`, {
          produced_by_partner: flag === 'on',
        })
      ).data.production_order
      ctx.print(
        po,
        () => `Production order ${po.id}: produced by partner ${po.produced_by_partner ? 'yes' : 'no'}`,
      )
    },
  },
  {
    name: 'production cancel',
    args: ['ORDER_ID'],
    summary: 'Cancel a whole order (order.cancelled)',
    example: 'production cancel ORDER_ID',
    async run(ctx) {
      const { order } = (await ctx.call('POST', `/orders/${ctx.args[0]}/cancel`)).data
      ctx.print(order, () => `Order ${order.id} is ${order.status}`)
    },
  },
  {
    name: 'shop-orders create',
    args: ['ORG_ID'],
    summary: 'An order from a shop connection: live, never sending webhook events',
    example: 'shop-orders create ORG_ID --file order.json',
    options: {
      file: {
        type: 'string',
        value: 'PATH',
        description: 'the order as JSON, as POST /v1/orders takes it (- for stdin)',
      },
    },
    async run(ctx) {
      const path = required(ctx, 'file')
      let body: unknown
      try {
        body = JSON.parse(readFileSync(path === '-' ? 0 : path, 'utf8'))
      } catch (err) {
        ctx.usageError(`--file ${path}: ${(err as Error).message}`)
      }
      const { order, warnings } = (await ctx.call('POST', `/organizations/${ctx.args[0]}/shop-orders`, body))
        .data
      ctx.print({ order, warnings }, () =>
        [
          `Shop order ${order.id} (${order.external_order_id}), ${order.status}; it sends no webhook events.`,
          ...(warnings as Json[]).map((w) => `Warning: ${w.message ?? JSON.stringify(w)}`),
        ].join('\n'),
      )
    },
  },
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
  {
    name: 'stats',
    args: ['ORG_ID'],
    summary: "An organization's live orders: total, by status, items, quantity",
    example: 'stats ORG_ID',
    async run(ctx) {
      const { data } = await ctx.call('GET', `/organizations/${ctx.args[0]}/stats`)
      ctx.print(data, () =>
        [
          fields([
            ['Live orders', data.orders_total],
            ['Items', data.items_total],
            ['Quantity', data.quantity_total],
          ]),
          '',
          table(Object.entries(data.orders_by_status as Record<string, number>), [
            ['STATUS', ([s]) => s],
            ['ORDERS', ([, n]) => n],
          ]),
        ].join('\n'),
      )
    },
  },
  {
    name: 'invitations create',
    args: ['ORG_ID', 'EMAIL'],
    summary: 'A dashboard invitation to an organization (its first owner, usually): the link, once',
    example: 'invitations create ORG_ID owner@example.com --role owner',
    options: { role: { type: 'string', value: 'owner|developer|viewer', description: 'the role (owner)' } },
    async run(ctx) {
      const [org, email] = ctx.args
      const data = (
        await ctx.call('POST', `/organizations/${org}/invitations`, {
          email,
          role: str(ctx, 'role') ?? 'owner',
        })
      ).data
      ctx.print(data, () => invitationText(data, 'Invitation', 'invitations revoke'))
    },
  },
  {
    name: 'invitations list',
    args: ['ORG_ID'],
    summary: "An organization's pending invitations (not accepted, revoked or expired)",
    example: 'invitations list ORG_ID',
    async run(ctx) {
      const { data } = await ctx.call('GET', `/organizations/${ctx.args[0]}/invitations`)
      ctx.print(data, () => table<Json>(data, invitationColumns, 'No pending invitations.'))
    },
  },
  {
    name: 'invitations revoke',
    args: ['INVITATION_ID'],
    summary: 'Revoke a pending dashboard invitation: its link stops working at once',
    example: 'invitations revoke INVITATION_ID',
    async run(ctx) {
      const { invitation } = (await ctx.call('DELETE', `/invitations/${ctx.args[0]}`)).data
      ctx.print(
        invitation,
        () => `Revoked invitation ${invitation.id} for ${invitation.email} (${invitation.role})`,
      )
    },
  },
  {
    name: 'operators list',
    args: [],
    summary: 'The operator accounts of the platform',
    example: 'operators list',
    async run(ctx) {
      const { data } = await ctx.call('GET', '/operators')
      ctx.print(data, () =>
        table<Json>(
          data,
          [
            ['ID', (o) => o.id],
            ['EMAIL', (o) => o.email],
            ['SINCE', (o) => relativeTime(o.created_at)],
          ],
          'No operator accounts yet: try `operators invite EMAIL`.',
        ),
      )
    },
  },
  {
    name: 'operators invite',
    args: ['EMAIL'],
    summary: 'An operator account invitation: the link (7 days, single use), once',
    example: 'operators invite ops@example.com',
    async run(ctx) {
      const data = (await ctx.call('POST', '/operators/invitations', { email: ctx.args[0] })).data
      ctx.print(data, () => invitationText(data, 'Operator invitation', 'operators revoke-invitation'))
    },
  },
  {
    name: 'operators invitations',
    args: [],
    summary: 'The pending operator invitations (not accepted, revoked or expired)',
    example: 'operators invitations',
    async run(ctx) {
      const { data } = await ctx.call('GET', '/operators/invitations')
      ctx.print(data, () =>
        table<Json>(
          data,
          invitationColumns.filter(([h]) => h !== 'ROLE'),
          'No pending operator invitations.',
        ),
      )
    },
  },
  {
    name: 'operators revoke-invitation',
    args: ['INVITATION_ID'],
    summary: 'Revoke a pending operator invitation: its link stops working at once',
    example: 'operators revoke-invitation INVITATION_ID',
    async run(ctx) {
      const { invitation } = (await ctx.call('DELETE', `/operators/invitations/${ctx.args[0]}`)).data
      ctx.print(invitation, () => `Revoked operator invitation ${invitation.id} for ${invitation.email}`)
    },
  },
  {
    name: 'operators remove',
    args: ['OPERATOR_ID'],
    summary: 'Remove an operator account: its sessions end at once, its email is free (the token remains)',
    example: 'operators remove OPERATOR_ID',
    async run(ctx) {
      const data = (await ctx.call('DELETE', `/operators/${ctx.args[0]}`)).data
      const n = data.sessions_ended
      ctx.print(
        data,
        () =>
          `Removed operator ${data.operator.email} (${data.operator.id}); ${n} session${n === 1 ? '' : 's'} ended`,
      )
    },
  },
]

/** The earlier one-word names, still understood. */
export const ALIASES: Record<string, string> = {
  'create-org': 'organizations create',
  'list-orgs': 'organizations list',
  'create-key': 'keys create',
  'list-keys': 'keys list',
  'revoke-key': 'keys revoke',
  'create-product': 'products create',
  'get-order': 'orders show',
  'set-status': 'production status',
  'complete-job': 'production complete-job',
  'list-deliveries': 'deliveries list',
  redeliver: 'deliveries redeliver',
  invite: 'invitations create',
}
