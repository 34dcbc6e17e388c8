import { Button, Code, Group, Loader, Paper, Select, Text, TextInput, Title } from '@mantine/core'
import { useState } from 'react'
import { DataCell, DataRow, DataTable } from '../../../components/data-table.tsx'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { NextAttempt } from '../../../components/next-attempt.tsx'
import { PhoneFilters } from '../../../components/phone-filters.tsx'
import { Time } from '../../../components/time.tsx'
import { type Env, EVENT_TYPES, type LogFilters, useDeliveries, useRedeliver } from '../api/webhooks.ts'
import { DeliveryDialog } from './delivery-detail.tsx'
import { DeliveryStatus } from './delivery-status.tsx'
import { localToIso } from './replay-form.tsx'

/** The endpoint's delivery log, newest first, read again every 5 s; an entry opens its attempts, payload and headers. */
export function DeliveryLog({
  env,
  endpointId,
  canManage,
}: {
  env: Env
  endpointId: string
  canManage: boolean
}) {
  const [filters, setFilters] = useState<LogFilters>({})
  const [since, setSince] = useState('')
  const [until, setUntil] = useState('')
  const [cursors, setCursors] = useState<string[]>([])
  const [open, setOpen] = useState<string | null>(null)
  const cursor = cursors.at(-1)
  const applied: LogFilters = {
    ...filters,
    created_since: localToIso(since),
    created_until: localToIso(until),
  }
  const log = useDeliveries(env, endpointId, applied, cursor)
  const redeliver = useRedeliver(env)

  const set = (patch: LogFilters) => {
    setCursors([])
    setFilters((f) => ({ ...f, ...patch }))
  }
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby="log-heading">
      <Title order={2} size="h3" id="log-heading" mb="sm">
        Delivery log
      </Title>
      <Group align="flex-end" mb="sm">
        <PhoneFilters
          active={
            [filters.status, filters.event_type, filters.event_id, filters.order_id, since, until].filter(
              Boolean,
            ).length
          }
        >
          <Select
            label="Status"
            placeholder="Any"
            clearable
            data={['pending', 'succeeded', 'failed']}
            value={filters.status ?? null}
            onChange={(v) => set({ status: v ?? undefined })}
            w={{ base: '100%', sm: 140 }}
          />
          <Select
            label="Event type"
            placeholder="Any"
            clearable
            data={EVENT_TYPES as unknown as string[]}
            value={filters.event_type ?? null}
            onChange={(v) => set({ event_type: v ?? undefined })}
            w={{ base: '100%', sm: 230 }}
          />
          <TextInput
            label="Event id"
            value={filters.event_id ?? ''}
            onChange={(e) => set({ event_id: e.currentTarget.value.trim() || undefined })}
            w={{ base: '100%', sm: 300 }}
          />
          <TextInput
            label="Order id"
            value={filters.order_id ?? ''}
            onChange={(e) => set({ order_id: e.currentTarget.value.trim() || undefined })}
            w={{ base: '100%', sm: 300 }}
          />
          <TextInput
            label="Created since"
            w={{ base: '100%', sm: 'auto' }}
            type="datetime-local"
            value={since}
            onChange={(e) => {
              setCursors([])
              setSince(e.currentTarget.value)
            }}
          />
          <TextInput
            label="Created until"
            w={{ base: '100%', sm: 'auto' }}
            type="datetime-local"
            value={until}
            onChange={(e) => {
              setCursors([])
              setUntil(e.currentTarget.value)
            }}
          />
        </PhoneFilters>
      </Group>
      <ErrorAlert error={log.error ?? redeliver.error} />
      {log.isPending ? (
        <Loader aria-label="Loading deliveries" />
      ) : log.data?.data.length === 0 ? (
        <Text c="dimmed">No deliveries match.</Text>
      ) : (
        <DataTable
          label="Deliveries"
          columns={[
            'Created',
            'Event',
            'Status',
            'Attempts',
            'Last answer',
            { label: 'Actions', hidden: true },
          ]}
        >
          {log.data?.data.map((d) => (
            <DataRow key={d.id}>
              <DataCell label="Created">
                <Time value={d.created_at} exact />
              </DataCell>
              <DataCell label="Event" title>
                <Text size="sm" component="span" display="block">
                  {d.event_type}
                </Text>
                <Code>{d.event_id}</Code>
                {d.redelivery_of && (
                  <Text size="xs" component="span" display="block">
                    Redelivery
                  </Text>
                )}
                {d.replay_id && (
                  <Text size="xs" component="span" display="block">
                    Replay
                  </Text>
                )}
              </DataCell>
              <DataCell label="Status">
                <DeliveryStatus status={d.status} />
                {d.status === 'pending' && (
                  <Text size="xs" component="span" display="block">
                    <NextAttempt delivery={d} exact />
                  </Text>
                )}
              </DataCell>
              <DataCell label="Attempts">{d.attempts}</DataCell>
              <DataCell label="Last answer">{d.response_status ?? d.error_message ?? '—'}</DataCell>
              <DataCell label="Actions" hideLabel>
                <Group gap="xs" wrap="nowrap">
                  <Button
                    variant="default"
                    size="xs"
                    aria-label={`Details of ${d.event_type} ${d.id}`}
                    onClick={() => setOpen(d.id)}
                  >
                    Details
                  </Button>
                  {canManage && (
                    <Button
                      variant="default"
                      size="xs"
                      aria-label={`Redeliver ${d.event_type} ${d.id}`}
                      loading={redeliver.isPending && redeliver.variables === d.id}
                      onClick={() => redeliver.mutate(d.id)}
                    >
                      Redeliver
                    </Button>
                  )}
                </Group>
              </DataCell>
            </DataRow>
          ))}
        </DataTable>
      )}
      <Group mt="sm">
        <Button
          variant="default"
          size="xs"
          disabled={cursors.length === 0}
          onClick={() => setCursors((c) => c.slice(0, -1))}
        >
          Newer
        </Button>
        <Button
          variant="default"
          size="xs"
          disabled={!log.data?.next_cursor}
          onClick={() => log.data?.next_cursor && setCursors((c) => [...c, log.data.next_cursor!])}
        >
          Older
        </Button>
        {redeliver.data && (
          <Text size="sm" role="status">
            Redelivery queued as a new entry.
          </Text>
        )}
      </Group>
      <DeliveryDialog env={env} id={open} onClose={() => setOpen(null)} />
    </Paper>
  )
}
