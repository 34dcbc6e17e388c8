/**
 * The admin CLI's commands: one per operator API operation (/admin/v1), each
 * with its usage, summary, example and options, and its human output; one
 * file per area under commands/.
 */
import { INVITATIONS_COMMANDS, OPERATORS_COMMANDS, PASSWORD_RESET_COMMANDS } from './commands/accounts.ts'
import { AUTOMATION_COMMANDS } from './commands/automation.ts'
import type { Command } from './commands/command.ts'
import { ORDERS_COMMANDS, STATS_COMMANDS } from './commands/orders.ts'
import { ORGANIZATIONS_COMMANDS } from './commands/organizations.ts'
import { PERSONAL_DATA_COMMANDS } from './commands/personal-data.ts'
import { PRODUCTS_COMMANDS } from './commands/products.ts'
import { USAGE_COMMANDS } from './commands/usage.ts'
import { WEBHOOKS_COMMANDS } from './commands/webhooks.ts'

export type { Command, Json, OptionSpec, RunContext } from './commands/command.ts'

export const COMMANDS: Command[] = [
  ...ORGANIZATIONS_COMMANDS,
  ...PRODUCTS_COMMANDS,
  ...ORDERS_COMMANDS,
  ...WEBHOOKS_COMMANDS,
  ...AUTOMATION_COMMANDS,
  ...STATS_COMMANDS,
  ...USAGE_COMMANDS,
  ...INVITATIONS_COMMANDS,
  ...OPERATORS_COMMANDS,
  ...PASSWORD_RESET_COMMANDS,
  ...PERSONAL_DATA_COMMANDS,
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
