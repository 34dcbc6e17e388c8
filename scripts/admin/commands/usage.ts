/** Usage counted for billing: every organization's live orders in a month. */
import { table } from '../format.ts'
import { type Command, type Json, query, str } from './command.ts'

export const USAGE_COMMANDS: Command[] = [
  {
    name: 'usage',
    args: [],
    summary: "Usage for billing: every organization's live orders, items and quantity in a UTC month",
    example: 'usage --month 2026-11',
    options: {
      month: {
        type: 'string',
        value: 'YYYY-MM',
        description: 'the calendar month (UTC); the current one when left out',
      },
    },
    async run(ctx) {
      const month = str(ctx, 'month')
      if (month !== undefined && !/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) {
        ctx.usageError('--month takes a month as YYYY-MM, such as 2026-11')
      }
      const { data } = await ctx.call('GET', `/usage${query({ month })}`)
      ctx.print(data, () =>
        [
          `Usage in ${data.month} (UTC): live orders by month of creation; cancelled orders stay counted, test orders never are.`,
          '',
          table(
            [...(data.organizations as Json[]), { id: '', name: 'Total', ...data.totals }],
            [
              ['ORGANIZATION', (o) => o.name],
              ['ID', (o) => o.id],
              ['ORDERS', (o) => o.orders],
              ['ITEMS', (o) => o.items],
              ['QUANTITY', (o) => o.quantity],
            ],
          ),
        ].join('\n'),
      )
    },
  },
]
