import { Alert, Badge, Button, Group, Text } from '@mantine/core'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import type { DashboardOrder } from '../../../lib/api.ts'
import { type Editor, useOrderEdits } from '../api/order-edit.ts'

/** What the automation rules did to an order, as badges: Held, Rush, Partner and its tags. */
export function AutomationBadges({
  held,
  priority,
  partner,
  tags,
}: {
  held: boolean
  priority: string
  partner: boolean
  tags: string[]
}) {
  return (
    <>
      {/* Darker than orange.9, which white text on small badges does not contrast enough with. */}
      {held && <Badge color="#9c3d00">Held</Badge>}
      {priority === 'rush' && <Badge color="red.9">Rush</Badge>}
      {partner && <Badge color="grape.9">Partner</Badge>}
      {tags.map((tag) => (
        <Badge key={tag} variant="outline" color="gray.8" tt="none">
          {tag}
        </Badge>
      ))}
    </>
  )
}

/** A held order: the rule and its reason; owners, developers and operators release it. */
export function HeldAlert({
  order,
  who,
  canRelease,
}: {
  order: DashboardOrder
  who: Editor
  canRelease: boolean
}) {
  const { release } = useOrderEdits(who, order.id)
  if (!order.held || !order.hold) return null
  return (
    <Alert color="orange" variant="default" title="Held for review">
      <Group justify="space-between" align="center">
        <Text size="sm">
          Held for review by rule '{order.hold.name}': {order.hold.reason}. Production cannot start until the
          order is released.
        </Text>
        {canRelease && (
          <Button
            size="xs"
            color="#9c3d00"
            loading={release.isPending}
            onClick={() => release.mutate({ expected: order.updated_at })}
          >
            Release
          </Button>
        )}
      </Group>
      <ErrorAlert error={release.error} title="The order was not released" />
    </Alert>
  )
}

/** An order whose rules wait for its files' print check: production waits with them. */
export function AwaitingPreflightAlert({ order }: { order: Pick<DashboardOrder, 'awaiting_preflight'> }) {
  const [first, ...others] = order.awaiting_preflight
  if (!first) return null
  return (
    <Alert color="blue" variant="default" title="Waiting for the print check">
      <Text size="sm">
        Rule '{first}'{others.length > 0 ? ` and ${others.length} more` : ''} read the print check of this
        order's files, which is still measuring them. Production cannot start until the results are in and the
        rules are applied, usually within seconds.
      </Text>
    </Alert>
  )
}

/** The matched rules in words: "Rule 'Large mugs' held this order for review and tagged this order "large"". */
export function ruleLines(order: Pick<DashboardOrder, 'automation'>) {
  return order.automation.map((rule) => {
    const words = rule.actions.map((a) => a.words)
    const said = words.length > 1 ? `${words.slice(0, -1).join(', ')} and ${words.at(-1)}` : words[0]
    return { id: rule.rule_id, text: `Rule '${rule.name}' ${said}` }
  })
}
