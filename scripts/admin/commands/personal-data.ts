/** A customer's personal data in an organization (docs/personal-data.md), and the organization's retention. */
import { table } from '../format.ts'
import { type Command, type Json, type OptionSpec, type RunContext, str } from './command.ts'

const WHO: Record<string, OptionSpec> = {
  email: { type: 'string', value: 'EMAIL', description: 'the customer’s e-mail (any case)' },
  phone: { type: 'string', value: 'PHONE', description: 'the customer’s phone (compared by its digits)' },
  name: { type: 'string', value: 'NAME', description: 'the customer’s name (any case)' },
  order: { type: 'string', value: 'ID[,ID...]', description: 'orders picked by id' },
}

/** The search of the options; at least one is needed. */
function who(ctx: RunContext) {
  const orders = str(ctx, 'order')
  const body = {
    ...(str(ctx, 'email') ? { email: str(ctx, 'email') } : {}),
    ...(str(ctx, 'phone') ? { phone: str(ctx, 'phone') } : {}),
    ...(str(ctx, 'name') ? { name: str(ctx, 'name') } : {}),
    ...(orders ? { order_ids: orders.split(',').map((id) => id.trim()) } : {}),
  }
  if (Object.keys(body).length === 0) ctx.usageError('say whose data: --email, --phone, --name or --order')
  return body
}

function days(ctx: RunContext, name: string, fallback: number | null): number | null {
  const value = str(ctx, name)
  if (value === undefined) return fallback
  if (value === 'off') return null
  if (!/^\d+$/.test(value))
    ctx.usageError(`--${name} takes a number of days${name === 'finished-orders' ? ' or off' : ''}`)
  return Number(value)
}

const previewText = (p: Json) =>
  [
    `${p.orders.total} orders found (${p.orders.live} live, ${p.orders.test} test; ${p.orders.finished} finished, ${p.orders.already_erased} already erased).`,
    `Their data is also in ${p.request_log_lines} request-log bodies, ${p.audit_entries} audit entries and ${p.webhook_answers} webhook answers; their ${p.events_kept} events hold none and stay.`,
    ...(p.orders.first.length > 0
      ? [
          '',
          table(p.orders.first as Json[], [
            ['ORDER', (o) => o.external_order_id],
            ['ID', (o) => o.id],
            ['ENV', (o) => o.environment],
            [
              'CUSTOMER',
              (o) =>
                o.erased_at ? 'erased' : [o.customer.name, o.customer.email].filter(Boolean).join(', '),
            ],
            ['PRODUCTION', (o) => o.production_status ?? '-'],
          ]),
        ]
      : []),
  ].join('\n')

export const PERSONAL_DATA_COMMANDS: Command[] = [
  {
    name: 'personal-data preview',
    args: ['ORG_ID'],
    summary: 'The orders of a customer and what an erasure would remove; changes nothing',
    example: 'personal-data preview 0193... --email anna@example.com',
    options: WHO,
    async run(ctx) {
      const { data } = await ctx.call('POST', `/organizations/${ctx.args[0]}/personal-data/preview`, who(ctx))
      ctx.print(data, () => previewText(data))
    },
  },
  {
    name: 'personal-data export',
    args: ['ORG_ID'],
    summary: 'Everything stored about a customer, as JSON on stdout (an access request; audited)',
    example: 'personal-data export 0193... --email anna@example.com > anna.json',
    options: WHO,
    async run(ctx) {
      const data = await ctx.call('POST', `/organizations/${ctx.args[0]}/personal-data/exports`, who(ctx))
      // The file itself, with or without --json.
      ctx.print(data, () => JSON.stringify(data, null, 2))
    },
  },
  {
    name: 'personal-data erase',
    args: ['ORG_ID'],
    summary:
      'Erase a customer’s personal data from their orders and every copy kept; cannot be undone (without --yes: what it would do)',
    example: 'personal-data erase 0193... --email anna@example.com --yes',
    options: {
      ...WHO,
      personalization: {
        type: 'string',
        value: 'finished|all|none',
        description: 'whose personalization and file names go too (default: finished orders’)',
      },
      yes: { type: 'boolean', description: 'erase: without it, nothing changes' },
    },
    async run(ctx) {
      const body = who(ctx)
      const personalization = str(ctx, 'personalization') ?? 'finished'
      if (!['finished', 'all', 'none'].includes(personalization)) {
        ctx.usageError('--personalization takes finished, all or none')
      }
      const org = ctx.args[0]
      if (ctx.options.yes !== true) {
        const { data } = await ctx.call('POST', `/organizations/${org}/personal-data/preview`, body)
        ctx.print(
          data,
          () => `${previewText(data)}\n\nNothing was erased: add --yes to erase it (it cannot be undone).`,
        )
        return
      }
      const { data } = await ctx.call('POST', `/organizations/${org}/personal-data/erasures`, {
        ...body,
        personalization,
      })
      ctx.print(
        data,
        () =>
          `Erased from ${data.orders} orders (personalization of ${data.personalization}), ${data.request_log_lines} request-log bodies, ${data.audit_entries} audit entries and ${data.webhook_answers} webhook answers. Run again after an interruption: it finishes what was left.`,
      )
    },
  },
  {
    name: 'retention show',
    args: ['ORG_ID'],
    summary:
      'How long an organization keeps request bodies, webhook answers and finished orders’ personal data',
    example: 'retention show 0193...',
    async run(ctx) {
      const { data } = await ctx.call('GET', `/organizations/${ctx.args[0]}/retention`)
      ctx.print(data, () => retentionText(data))
    },
  },
  {
    name: 'retention set',
    args: ['ORG_ID'],
    summary: 'Set how long an organization keeps each kind of data (options left out keep their value)',
    example: 'retention set 0193... --request-bodies 7 --finished-orders 365',
    options: {
      'request-bodies': { type: 'string', value: 'DAYS', description: 'request-log bodies, 0 to 30' },
      'webhook-answers': { type: 'string', value: 'DAYS', description: 'receivers’ answers, 0 to 365' },
      'finished-orders': {
        type: 'string',
        value: 'DAYS|off',
        description: 'erase the customer this many days after an order finished (1 to 3650), or off',
      },
    },
    async run(ctx) {
      const path = `/organizations/${ctx.args[0]}/retention`
      const { data: now } = await ctx.call('GET', path)
      const { data } = await ctx.call('PUT', path, {
        request_body_retention_days: days(ctx, 'request-bodies', now.request_body_retention_days),
        webhook_answer_retention_days: days(ctx, 'webhook-answers', now.webhook_answer_retention_days),
        personal_data_retention_days: days(ctx, 'finished-orders', now.personal_data_retention_days),
      })
      ctx.print(data, () => retentionText(data))
    },
  },
]

const retentionText = (r: Json) =>
  [
    `Request bodies:   ${r.request_body_retention_days} days`,
    `Webhook answers:  ${r.webhook_answer_retention_days} days`,
    `Finished orders:  ${r.personal_data_retention_days === null ? 'kept (off)' : `customer erased after ${r.personal_data_retention_days} days`}`,
  ].join('\n')
