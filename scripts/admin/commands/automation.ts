/** An organization's automation rules (operators read them; members change them in the dashboard). */
import { table } from '../format.ts'
import { type Command, type Json, required } from './command.ts'

const ACTION_WORDS: Record<string, (value?: string) => string> = {
  hold: () => 'hold for review',
  partner: () => 'produce by partner',
  priority: (value) => `priority ${value}`,
  tag: (value) => `tag "${value}"`,
}

/** A rule's actions in words: `hold for review, tag "large"`. */
export const describeActions = (actions: { type: string; value?: string }[]) =>
  actions.map((a) => ACTION_WORDS[a.type]?.(a.value) ?? a.type).join(', ')

export const AUTOMATION_COMMANDS: Command[] = [
  {
    name: 'rules',
    args: [],
    summary: "An organization's automation rules in the order they run: conditions and actions in words",
    example: 'rules --org ORG_ID',
    options: { org: { type: 'string', value: 'ORG_ID', description: 'the organization (required)' } },
    async run(ctx) {
      const org = required(ctx, 'org')
      const { data } = await ctx.call('GET', `/organizations/${encodeURIComponent(org)}/automation-rules`)
      ctx.print(data, () => {
        const rules = data.rules as Json[]
        if (rules.length === 0) return 'No automation rules.'
        return [
          `${rules.length} of at most ${data.max_rules} rules, in the order they run on live orders:`,
          '',
          table(rules, [
            ['#', (r) => r.position],
            ['ID', (r) => r.id],
            ['NAME', (r) => r.name],
            ['STATE', (r) => (r.enabled ? 'enabled' : 'disabled')],
            ['WHEN', (r) => r.description],
            ['THEN', (r) => describeActions(r.actions)],
          ]),
        ].join('\n')
      })
    },
  },
]
