/** Commands for orders, production and shop orders, and the statistics. */
import { readFileSync, writeFileSync } from 'node:fs'
import { type Column, fields, relativeTime, table } from '../format.ts'
import { type Command, integer, type Json, more, query, required, str } from './command.ts'

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

/** The event a status change sends receivers of live API orders (none for pending). */
const STATUS_EVENTS: Record<string, string | undefined> = {
  in_progress: 'order.production_started',
  completed: 'order.production_completed',
  failed: 'order.production_failed',
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

export const ORDERS_COMMANDS: Command[] = [
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
    name: 'production show',
    args: ['PRODUCTION_ORDER_ID'],
    summary: 'A production order: its status, partner flag and order',
    example: 'production show PRODUCTION_ORDER_ID',
    async run(ctx) {
      const { data } = await ctx.call('GET', `/production-orders/${ctx.args[0]}`)
      const po = data.production_order
      ctx.print(data, () =>
        [
          fields([
            ['Production order', po.id],
            ['Status', po.status],
            ['Produced by partner', po.produced_by_partner ? 'yes' : 'no'],
            ['Organization', `${data.organization.name} (${data.organization.id})`],
            ['Updated', relativeTime(data.updated_at)],
          ]),
          '',
          orderText(data.order),
        ].join('\n'),
      )
    },
  },
  {
    name: 'production status',
    args: ['PRODUCTION_ORDER_ID', 'STATUS'],
    summary:
      'Set a production order to pending, in_progress, completed, failed or cancelled, if it still has the status read just before (or --from)',
    example: 'production status PRODUCTION_ORDER_ID in_progress',
    options: {
      from: {
        type: 'string',
        value: 'STATUS',
        description:
          'the status you know it has; another one refuses the change (409). Required to move a cancelled order: --from cancelled',
      },
    },
    async run(ctx) {
      const [id, status] = ctx.args as [string, string]
      let from = str(ctx, 'from')
      if (from === undefined) {
        const { data } = await ctx.call('GET', `/production-orders/${id}`)
        from = data.production_order.status as string
        if (from === 'cancelled' && status !== 'cancelled') {
          const event = STATUS_EVENTS[status]
          const told =
            data.order.source !== 'api'
              ? 'it is a shop order, so no event was sent and none will be'
              : `its organization's live webhook endpoints were sent order.cancelled; ${
                  event
                    ? `moving it to ${status} sends them ${event} after that`
                    : `moving it to ${status} sends them nothing, but lets production start again`
                }`
          ctx.usageError(
            `Production order ${id} is cancelled: ${told}. Nothing was done.\n` +
              `To move it anyway: npm run admin -- production status ${id} ${status} --from cancelled`,
          )
        }
      }
      const po = (
        await ctx.call('POST', `/production-orders/${id}/status`, { status, expected_status: from })
      ).data.production_order
      ctx.print(po, () =>
        from === po.status
          ? `Production order ${po.id} is ${po.status} (unchanged)`
          : `Production order ${po.id} is ${po.status} (was ${from})`,
      )
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
]

export const STATS_COMMANDS: Command[] = [
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
]
