import { Loader, Paper, Text, Title } from '@mantine/core'
import { useState } from 'react'
import { DataCell, DataRow, DataTable } from '../../../components/data-table.tsx'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { Time } from '../../../components/time.tsx'
import { DeliveryDialog } from '../../webhooks/components/delivery-detail.tsx'
import { useOrderTimeline } from '../api/order.ts'
import { type Editor, useOrderHistory } from '../api/order-edit.ts'
import { EventDeliveries } from './event-deliveries.tsx'

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
  /** Whose page: both see the changes and the deliveries and open a delivery's payload; an operator is not shown its signatures. */
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
                  <EventDeliveries event={event!} onOpen={setOpen} />
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
