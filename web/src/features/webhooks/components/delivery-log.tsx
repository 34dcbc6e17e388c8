import {
  Button,
  Code,
  Group,
  Loader,
  Modal,
  Paper,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core'
import { useState } from 'react'
import { DeliveryStatus } from '../../../components/delivery-status.tsx'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { Time } from '../../../components/time.tsx'
import type { Delivery } from '../../../lib/api.ts'
import {
  type Env,
  EVENT_TYPES,
  type LogFilters,
  useDeliveries,
  useDelivery,
  useRedeliver,
} from '../api/webhooks.ts'
import { localToIso } from './replay-form.tsx'

/** The endpoint's delivery log, newest first, read again every 5 s; an entry opens its attempts. */
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
        <Select
          label="Status"
          placeholder="Any"
          clearable
          data={['pending', 'succeeded', 'failed']}
          value={filters.status ?? null}
          onChange={(v) => set({ status: v ?? undefined })}
          w={140}
        />
        <Select
          label="Event type"
          placeholder="Any"
          clearable
          data={EVENT_TYPES as unknown as string[]}
          value={filters.event_type ?? null}
          onChange={(v) => set({ event_type: v ?? undefined })}
          w={230}
        />
        <TextInput
          label="Event id"
          value={filters.event_id ?? ''}
          onChange={(e) => set({ event_id: e.currentTarget.value.trim() || undefined })}
          w={300}
        />
        <TextInput
          label="Order id"
          value={filters.order_id ?? ''}
          onChange={(e) => set({ order_id: e.currentTarget.value.trim() || undefined })}
          w={300}
        />
        <TextInput
          label="Created since"
          type="datetime-local"
          value={since}
          onChange={(e) => {
            setCursors([])
            setSince(e.currentTarget.value)
          }}
        />
        <TextInput
          label="Created until"
          type="datetime-local"
          value={until}
          onChange={(e) => {
            setCursors([])
            setUntil(e.currentTarget.value)
          }}
        />
      </Group>
      <ErrorAlert error={log.error ?? redeliver.error} />
      {log.isPending ? (
        <Loader aria-label="Loading deliveries" />
      ) : log.data?.data.length === 0 ? (
        <Text c="dimmed">No deliveries match.</Text>
      ) : (
        <Table.ScrollContainer minWidth={900}>
          <Table striped aria-label="Deliveries">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Created</Table.Th>
                <Table.Th>Event</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Attempts</Table.Th>
                <Table.Th>Last answer</Table.Th>
                <Table.Th>Actions</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {log.data?.data.map((d) => (
                <Table.Tr key={d.id}>
                  <Table.Td>
                    <Time value={d.created_at} exact />
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{d.event_type}</Text>
                    <Code>{d.event_id}</Code>
                    {d.redelivery_of && <Text size="xs">Redelivery</Text>}
                    {d.replay_id && <Text size="xs">Replay</Text>}
                  </Table.Td>
                  <Table.Td>
                    <DeliveryStatus status={d.status} />
                    {d.status === 'pending' && d.next_attempt_at && (
                      <Text size="xs">
                        Next try <Time value={d.next_attempt_at} exact />
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>{d.attempts}</Table.Td>
                  <Table.Td>
                    <Text size="sm">{d.response_status ?? d.error_message ?? '—'}</Text>
                  </Table.Td>
                  <Table.Td>
                    <Group gap="xs" wrap="nowrap">
                      <Button
                        variant="default"
                        size="xs"
                        aria-label={`Attempts of ${d.event_type} ${d.id}`}
                        onClick={() => setOpen(d.id)}
                      >
                        Attempts
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
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
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
      <Attempts env={env} id={open} onClose={() => setOpen(null)} />
    </Paper>
  )
}

function Attempts({ env, id, onClose }: { env: Env; id: string | null; onClose: () => void }) {
  const detail = useDelivery(env, id)
  const delivery: Delivery | undefined = detail.data?.delivery
  return (
    <Modal
      closeButtonProps={{ 'aria-label': 'Close' }}
      opened={id !== null}
      onClose={onClose}
      title="Attempts"
      size="xl"
    >
      {detail.isPending ? (
        <Loader aria-label="Loading attempts" />
      ) : (
        <Stack>
          <ErrorAlert error={detail.error} />
          {delivery && (
            <Text size="sm">
              {delivery.event_type} <Code>{delivery.event_id}</Code>{' '}
              <DeliveryStatus status={delivery.status} />
              {delivery.next_attempt_at && (
                <>
                  {' '}
                  Next attempt <Time value={delivery.next_attempt_at} />.
                </>
              )}
            </Text>
          )}
          {detail.data?.attempts.length === 0 ? (
            <Text c="dimmed">No attempt yet.</Text>
          ) : (
            <Table aria-label="Attempts of the delivery">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>#</Table.Th>
                  <Table.Th>Time</Table.Th>
                  <Table.Th>Duration</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th>Response</Table.Th>
                  <Table.Th>Error</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {detail.data?.attempts.map((a) => (
                  <Table.Tr key={a.attempt}>
                    <Table.Td>{a.attempt}</Table.Td>
                    <Table.Td>
                      <Time value={a.started_at} exact />
                    </Table.Td>
                    <Table.Td>{a.duration_ms === null ? '—' : `${a.duration_ms} ms`}</Table.Td>
                    <Table.Td>{a.response_status ?? '—'}</Table.Td>
                    <Table.Td>
                      <Code block style={{ maxWidth: 320, whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
                        {a.response_snippet ?? ''}
                      </Code>
                    </Table.Td>
                    <Table.Td>{a.error_message ?? '—'}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
        </Stack>
      )}
    </Modal>
  )
}
