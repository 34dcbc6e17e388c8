import { Badge, Group, Loader, Paper, Stack, Table, Text, Title } from '@mantine/core'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { Time } from '../../../components/time.tsx'
import { useOrderTimeline } from '../api/order.ts'
import { type Editor, type HistoryEntry, useOrderHistory } from '../api/order-edit.ts'

/** A history entry as one line: who changed what. */
function changeLine(entry: HistoryEntry) {
  const who = entry.by_operator ? `the operator ${entry.actor}` : entry.actor
  if (entry.action === 'order.cancelled') return `Cancelled by ${who}`
  if (entry.action === 'order.released') {
    const rule = entry.details.rule as { name?: string } | null | undefined
    return `Released by ${who}${rule?.name ? ` (held by rule '${rule.name}')` : ''}`
  }
  return `Changed by ${who}: ${entry.changed.join(', ')}`
}

const STATUS_COLOR: Record<string, string> = { succeeded: 'green', failed: 'red', pending: 'yellow' }

/** The order's events, oldest first, each with its webhook deliveries (status, attempts). */
export function OrderTimeline({
  orderId,
  receivedAt,
  isTest,
  rules = [],
  who = 'member',
}: {
  orderId: string
  receivedAt: string
  isTest: boolean
  /** The automation rules that matched when the order arrived, in words. */
  rules?: { id: string; text: string }[]
  /** Operators see the order's changes; its webhook deliveries are the organization's to see. */
  who?: Editor
}) {
  const timeline = useOrderTimeline(orderId, who === 'member')
  const history = useOrderHistory(who, orderId)
  const rows = [
    ...(timeline.data ?? []).map((event) => ({ at: event.created_at, event, change: null })),
    ...(history.data ?? []).map((change) => ({ at: change.created_at, event: null, change })),
  ].sort((a, b) => a.at.localeCompare(b.at))
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby="timeline-heading">
      <Title order={2} size="h3" id="timeline-heading" mb="sm">
        Timeline
      </Title>
      <ErrorAlert error={timeline.error ?? history.error} />
      {(who === 'member' && timeline.isPending) || history.isPending ? (
        <Loader aria-label="Loading the timeline" />
      ) : (
        <Table.ScrollContainer minWidth={720}>
          <Table striped aria-label="Events of the order and their webhook deliveries">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>When</Table.Th>
                <Table.Th>Event</Table.Th>
                <Table.Th>Webhook deliveries</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              <Table.Tr>
                <Table.Td style={{ whiteSpace: 'nowrap' }}>
                  <Time value={receivedAt} exact />
                </Table.Td>
                <Table.Td>Order received</Table.Td>
                <Table.Td>
                  <Text size="sm" c="dimmed">
                    {isTest ? 'Test orders produce no events.' : ''}
                  </Text>
                </Table.Td>
              </Table.Tr>
              {rules.map((rule) => (
                <Table.Tr key={rule.id}>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>
                    <Time value={receivedAt} exact />
                  </Table.Td>
                  <Table.Td>{rule.text}</Table.Td>
                  <Table.Td />
                </Table.Tr>
              ))}
              {rows.map(({ event, change }) =>
                change ? (
                  <Table.Tr key={change.id}>
                    <Table.Td style={{ whiteSpace: 'nowrap' }}>
                      <Time value={change.created_at} exact />
                    </Table.Td>
                    <Table.Td>{changeLine(change)}</Table.Td>
                    <Table.Td>
                      <Text size="sm" c="dimmed">
                        {isTest ? 'Test orders produce no events.' : ''}
                      </Text>
                    </Table.Td>
                  </Table.Tr>
                ) : (
                  <Table.Tr key={event!.id}>
                    <Table.Td style={{ whiteSpace: 'nowrap' }}>
                      <Time value={event!.created_at} exact />
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm" ff="monospace">
                        {event!.type}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      {event!.deliveries.length === 0 ? (
                        <Text size="sm" c="dimmed">
                          No endpoint received it.
                        </Text>
                      ) : (
                        <Stack gap="xs">
                          {event!.deliveries.map((d) => (
                            <div key={d.id}>
                              <Group gap="xs" wrap="nowrap">
                                <Badge
                                  color={STATUS_COLOR[d.status] ?? 'gray'}
                                  variant="dot"
                                  style={{ flexShrink: 0 }}
                                >
                                  {d.status}
                                </Badge>
                                <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                                  {d.endpoint_url}
                                </Text>
                              </Group>
                              <Text size="sm" c="dimmed" lineClamp={2}>
                                {d.attempts} {d.attempts === 1 ? 'attempt' : 'attempts'}
                                {d.response_status !== null ? `, HTTP ${d.response_status}` : ''}
                                {d.redelivery_of ? ', redelivery' : ''}
                                {d.next_attempt_at && (
                                  <>
                                    , next <Time value={d.next_attempt_at} />
                                  </>
                                )}
                                {d.error_message ? `: ${d.error_message}` : ''}
                              </Text>
                            </div>
                          ))}
                        </Stack>
                      )}
                    </Table.Td>
                  </Table.Tr>
                ),
              )}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Paper>
  )
}
