import { Code, Loader, Modal, Stack, Text, Title } from '@mantine/core'
import { DataCell, DataRow, DataTable, useStacked } from '../../../components/data-table.tsx'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { NextAttempt } from '../../../components/next-attempt.tsx'
import { Time } from '../../../components/time.tsx'
import type { Delivery } from '../../../lib/api.ts'
import { type Env, useConsoleDelivery, useDelivery, useDeliveryPayload } from '../api/webhooks.ts'
import { DeliveryStatus } from './delivery-status.tsx'

/** The body as a person reads it: indented JSON (the exact bytes sent are one line). */
function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2)
  } catch {
    return body
  }
}

const wrapped = { whiteSpace: 'pre-wrap', wordBreak: 'break-all' } as const

/** In place of a signature for viewers and operators: with one, a request could be replayed. */
const HIDDEN = {
  member: '(hidden: owners and developers only)',
  operator: "(hidden: the organization's owners and developers only)",
}

/**
 * One delivery: its attempts, the event payload it sent, pretty-printed, and
 * the headers of each attempt with the signature's timestamp (the signatures
 * named, not shown, to viewers and operators). Opened from the delivery log
 * and from an order's timeline, the console's too.
 */
export function DeliveryDialog({
  env,
  id,
  onClose,
  who = 'member',
}: {
  env: Env
  id: string | null
  onClose: () => void
  who?: 'member' | 'operator'
}) {
  const member = who === 'member'
  const own = useDelivery(env, member ? id : null)
  const ownPayload = useDeliveryPayload(env, member ? id : null)
  const any = useConsoleDelivery(member ? null : id)
  const detail = member ? own : any
  const payload = member ? ownPayload : { data: any.data?.payload, error: null }
  const delivery: Delivery | undefined = detail.data?.delivery
  const stacked = useStacked()
  return (
    <Modal
      closeButtonProps={{ 'aria-label': 'Close' }}
      opened={id !== null}
      onClose={onClose}
      title="Delivery details"
      size="xl"
      fullScreen={stacked}
    >
      {detail.isPending ? (
        <Loader aria-label="Loading attempts" />
      ) : (
        <Stack>
          <ErrorAlert error={detail.error ?? payload.error} />
          {delivery && (
            <Text size="sm">
              {delivery.event_type} <Code>{delivery.event_id}</Code>{' '}
              <DeliveryStatus status={delivery.status} />
              {delivery.status === 'pending' && (
                <>
                  {' '}
                  <NextAttempt delivery={delivery} />.
                </>
              )}
            </Text>
          )}
          {detail.data?.attempts.length === 0 ? (
            <Text c="dimmed">No attempt yet.</Text>
          ) : (
            <DataTable
              label="Attempts of the delivery"
              columns={['#', 'Time', 'Duration', 'Status', 'Response', 'Error']}
            >
              {detail.data?.attempts.map((a) => (
                <DataRow key={a.attempt}>
                  <DataCell label="Attempt" title>
                    {stacked ? `Attempt ${a.attempt}` : a.attempt}
                  </DataCell>
                  <DataCell label="Time">
                    <Time value={a.started_at} exact />
                  </DataCell>
                  <DataCell label="Duration">{a.duration_ms === null ? '—' : `${a.duration_ms} ms`}</DataCell>
                  <DataCell label="Status">{a.response_status ?? '—'}</DataCell>
                  <DataCell label="Response">
                    {a.response_snippet && (
                      <Code block style={{ maxWidth: stacked ? '100%' : 320, ...wrapped }}>
                        {a.response_snippet}
                      </Code>
                    )}
                  </DataCell>
                  <DataCell label="Error">{a.error_message ?? '—'}</DataCell>
                </DataRow>
              ))}
            </DataTable>
          )}
          {payload.data && (
            <>
              <section aria-labelledby="payload-heading">
                <Title order={3} size="h4" id="payload-heading" mb="xs">
                  Payload
                </Title>
                {payload.data.event.order_erased_at && (
                  <Text size="sm" mb="xs">
                    The customer of this event’s order was erased{' '}
                    <Time value={payload.data.event.order_erased_at} />. The payload never held them: a
                    redelivery or a replay sends these same bytes.
                  </Text>
                )}
                <Code block aria-label="Event payload" style={wrapped}>
                  {pretty(payload.data.event.body)}
                </Code>
              </section>
              {payload.data.attempts.map((a) => (
                <section key={a.attempt} aria-labelledby={`headers-${a.attempt}`}>
                  <Title order={3} size="h4" id={`headers-${a.attempt}`} mb="xs">
                    Headers of attempt {a.attempt}
                  </Title>
                  {a.signature_timestamp !== null && (
                    <Text size="sm" mb="xs">
                      Signed at <Time value={new Date(a.signature_timestamp * 1000).toISOString()} exact /> (
                      <Code>t={a.signature_timestamp}</Code>)
                    </Text>
                  )}
                  {a.note && (
                    <Text size="sm" c="dimmed" mb="xs">
                      {a.note}
                    </Text>
                  )}
                  {a.headers && (
                    <Code block aria-label={`Headers sent on attempt ${a.attempt}`} style={wrapped}>
                      {[
                        ...Object.entries(a.headers).map(([name, value]) => `${name}: ${value}`),
                        ...a.hidden_headers.map((name) => `${name}: ${HIDDEN[who]}`),
                      ].join('\n')}
                    </Code>
                  )}
                </section>
              ))}
            </>
          )}
        </Stack>
      )}
    </Modal>
  )
}
