import { Badge, Button, Group, Loader, Paper, Stack, Text, Title } from '@mantine/core'
import { useState } from 'react'
import { DataCell, DataRow, DataTable } from '../../../components/data-table.tsx'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { NextAttempt } from '../../../components/next-attempt.tsx'
import { Time } from '../../../components/time.tsx'
import { DeliveryDialog } from '../../webhooks/components/delivery-detail.tsx'
import { useOrderTimeline } from '../api/order.ts'
import { type Editor, useOrderHistory } from '../api/order-edit.ts'

const STATUS_COLOR: Record<string, string> = { succeeded: 'green', failed: 'red', pending: 'yellow' }

function NoEvents() {
  return (
    <Text size="sm" c="dimmed" component="span">
      Test orders produce no events.
    </Text>
  )
}

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
  /** Whose page: both see the changes and the deliveries; a delivery's payload is the member's to open. */
  who?: Editor
}) {
  const timeline = useOrderTimeline(who, orderId)
  const [open, setOpen] = useState<string | null>(null)
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
      {timeline.isPending || history.isPending ? (
        <Loader aria-label="Loading the timeline" />
      ) : (
        <DataTable
          label="Events of the order and their webhook deliveries"
          columns={['When', 'Event', 'Webhook deliveries']}
        >
          <DataRow>
            <DataCell label="When" style={{ whiteSpace: 'nowrap' }}>
              <Time value={receivedAt} exact />
            </DataCell>
            <DataCell label="Event" title>
              Order received
            </DataCell>
            <DataCell label="Webhook deliveries" labelAbove>
              {isTest && <NoEvents />}
            </DataCell>
          </DataRow>
          {rules.map((rule) => (
            <DataRow key={rule.id}>
              <DataCell label="When" style={{ whiteSpace: 'nowrap' }}>
                <Time value={receivedAt} exact />
              </DataCell>
              <DataCell label="Event" title>
                {rule.text}
              </DataCell>
              <DataCell label="Webhook deliveries" />
            </DataRow>
          ))}
          {rows.map(({ event, change }) =>
            change ? (
              <DataRow key={change.id}>
                <DataCell label="When" style={{ whiteSpace: 'nowrap' }}>
                  <Time value={change.created_at} exact />
                </DataCell>
                <DataCell label="Event" title>
                  {change.summary}
                </DataCell>
                <DataCell label="Webhook deliveries" labelAbove>
                  {isTest && <NoEvents />}
                </DataCell>
              </DataRow>
            ) : (
              <DataRow key={event!.id}>
                <DataCell label="When" style={{ whiteSpace: 'nowrap' }}>
                  <Time value={event!.created_at} exact />
                </DataCell>
                <DataCell label="Event" title>
                  <Text component="span" inherit ff="monospace">
                    {event!.type}
                  </Text>
                </DataCell>
                <DataCell label="Webhook deliveries" labelAbove>
                  {event!.deliveries.length === 0 ? (
                    <Text size="sm" c="dimmed" component="span">
                      No endpoint received it.
                    </Text>
                  ) : (
                    <Stack gap="xs">
                      {event!.deliveries.map((d) => (
                        <div key={d.id}>
                          <Group gap="xs" wrap="nowrap" align="flex-start">
                            <Badge
                              color={STATUS_COLOR[d.status] ?? 'gray'}
                              variant="dot"
                              style={{ flexShrink: 0 }}
                            >
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
                            aria-label={`Payload and headers of ${event!.type} to ${d.endpoint_url}${d.redelivery_of ? ' (redelivery)' : ''}`}
                            onClick={() => setOpen(d.id)}
                          >
                            Payload and headers
                          </Button>
                        </div>
                      ))}
                    </Stack>
                  )}
                </DataCell>
              </DataRow>
            ),
          )}
        </DataTable>
      )}
      <DeliveryDialog env={isTest ? 'test' : 'live'} id={open} onClose={() => setOpen(null)} who={who} />
    </Paper>
  )
}
