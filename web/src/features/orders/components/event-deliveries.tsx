import { Badge, Button, Group, Stack, Text } from '@mantine/core'
import { NextAttempt } from '../../../components/next-attempt.tsx'
import type { TimelineEvent } from '../../../lib/api.ts'

const STATUS_COLOR: Record<string, string> = { succeeded: 'green', failed: 'red', pending: 'yellow' }

/**
 * An event's webhook deliveries, as every timeline of an order lists them
 * (the member's order page, the console's, the production order's history):
 * each with its status, endpoint, attempts, last HTTP status or error, next
 * attempt, and **Payload and headers**, which `onOpen` opens with the id (in
 * a DeliveryDialog for the reader: an operator's names the signatures, never
 * shows them).
 */
export function EventDeliveries({
  event,
  onOpen,
}: {
  event: TimelineEvent
  onOpen: (deliveryId: string) => void
}) {
  if (event.deliveries.length === 0) {
    return (
      <Text size="sm" c="dimmed" component="span">
        No endpoint received it.
      </Text>
    )
  }
  return (
    <Stack gap="xs">
      {event.deliveries.map((d) => (
        <div key={d.id}>
          <Group gap="xs" wrap="nowrap" align="flex-start">
            <Badge color={STATUS_COLOR[d.status] ?? 'gray'} variant="dot" style={{ flexShrink: 0 }}>
              {d.status}
            </Badge>
            <Text size="sm" style={{ overflowWrap: 'anywhere', minWidth: 0 }}>
              {d.endpoint_url}
            </Text>
          </Group>
          <Text size="sm" c="dimmed" lineClamp={2}>
            {d.attempts} {d.attempts === 1 ? 'attempt' : 'attempts'}
            {d.response_status !== null ? `, HTTP ${d.response_status}` : ''}
            {d.redelivery_of ? ', redelivery' : ''}
            {d.error_message ? `: ${d.error_message}` : ''}
          </Text>
          {d.status === 'pending' && (
            <Text size="sm" c="dimmed">
              <NextAttempt delivery={d} />
            </Text>
          )}
          <Button
            variant="default"
            size="compact-xs"
            aria-label={`Payload and headers of ${event.type} to ${d.endpoint_url}${d.redelivery_of ? ' (redelivery)' : ''}`}
            onClick={() => onOpen(d.id)}
          >
            Payload and headers
          </Button>
        </div>
      ))}
    </Stack>
  )
}
