import { Button, Code, Text, Title } from '@mantine/core'
import { useSearchParams } from 'react-router'
import { DataCell, DataRow, DataTable } from '../../../../components/data-table.tsx'
import { ErrorAlert } from '../../../../components/error-alert.tsx'
import { NextProbe } from '../../../../components/next-attempt.tsx'
import { NextPageButton } from '../../../../components/next-page-button.tsx'
import { StatusBadge } from '../../../../components/status-badge.tsx'
import { Time } from '../../../../components/time.tsx'
import { exactTime } from '../../../../lib/format.ts'
import { DeliveryStatus } from '../../components/delivery-status.tsx'
import { EnvironmentControl } from '../../components/environment-switch.tsx'
import {
  useOrgDeliveries,
  useOrgEndpoints,
  useRedeliver,
  useRetryEndpointNow,
} from '../api/organization-webhooks.ts'

const RETRY_OUTCOME = {
  started: 'One delivery goes now as the probe; if it succeeds, the waiting deliveries follow.',
  under_way: 'An attempt to the endpoint is on its way already: its answer decides.',
  nothing_waiting: 'No delivery is waiting: the next event goes at once.',
} as const

/** An organization's webhook endpoints (Retry now on a failing one) and its delivery log (redelivery). */
export function OrganizationWebhooks({ orgId }: { orgId: string }) {
  const [params, setParams] = useSearchParams()
  const environment = params.get('environment') === 'test' ? 'test' : 'live'
  const endpoints = useOrgEndpoints(orgId, environment)
  const deliveries = useOrgDeliveries(orgId, environment)
  const redeliver = useRedeliver(orgId)
  const retry = useRetryEndpointNow(orgId)
  const rows = deliveries.data?.pages.flatMap((p) => p.data) ?? []
  const urlOf = new Map(endpoints.data?.map((e) => [e.id, e.url]))
  return (
    <>
      <EnvironmentControl
        value={environment}
        onChange={(v) => setParams({ environment: v }, { replace: true })}
      />
      <ErrorAlert error={endpoints.error ?? deliveries.error ?? redeliver.error ?? retry.error} />
      {endpoints.data?.length === 0 ? (
        <Text c="dimmed">No {environment} endpoints.</Text>
      ) : (
        <DataTable
          label={`Webhook endpoints (${environment})`}
          columns={[
            'URL',
            'State',
            'Failures in a row',
            'Last success',
            'Next probe',
            { label: 'Actions', hidden: true },
          ]}
        >
          {endpoints.data?.map((e) => (
            <DataRow key={e.id}>
              <DataCell label="URL" title>
                <span style={{ wordBreak: 'break-all' }}>{e.url}</span>
              </DataCell>
              <DataCell label="State">
                <StatusBadge color={e.is_active ? (e.consecutive_failures ? 'orange' : 'green') : 'gray'}>
                  {e.is_active
                    ? e.consecutive_failures
                      ? 'Failing'
                      : 'Active'
                    : (e.disabled_reason ?? 'Deleted')}
                </StatusBadge>
              </DataCell>
              <DataCell label="Failures in a row">{e.consecutive_failures}</DataCell>
              <DataCell label="Last success">
                {e.last_success_at ? <Time value={e.last_success_at} /> : 'Never'}
              </DataCell>
              <DataCell label="Next probe">
                {e.next_probe_at ? (
                  <>
                    <NextProbe at={e.next_probe_at} />; deliveries wait
                  </>
                ) : (
                  '—'
                )}
              </DataCell>
              <DataCell label="Actions" hideLabel>
                {e.next_probe_at && (
                  <Button
                    size="xs"
                    variant="default"
                    loading={retry.isPending && retry.variables === e.id}
                    onClick={() => retry.mutate(e.id)}
                    aria-label={`Retry ${e.url} now`}
                  >
                    Retry now
                  </Button>
                )}
              </DataCell>
            </DataRow>
          ))}
        </DataTable>
      )}
      {retry.data && (
        <Text size="sm" role="status">
          {RETRY_OUTCOME[retry.data.probe]}
        </Text>
      )}
      <Title order={3} size="h5" mt="md">
        Deliveries ({environment}), newest first
      </Title>
      {rows.length === 0 ? (
        <Text c="dimmed">No deliveries.</Text>
      ) : (
        <DataTable
          label={`Webhook deliveries (${environment})`}
          columns={[
            'Created',
            'Event',
            'Endpoint',
            'Status',
            'Attempts',
            'Last answer',
            { label: 'Actions', hidden: true },
          ]}
        >
          {rows.map((d) => (
            <DataRow key={d.id}>
              <DataCell label="Created">
                <Time value={d.created_at} exact />
              </DataCell>
              <DataCell label="Event" title>
                <Code>{d.event_type}</Code>
              </DataCell>
              <DataCell label="Endpoint">
                <span style={{ wordBreak: 'break-all' }}>{urlOf.get(d.endpoint_id) ?? d.endpoint_id}</span>
              </DataCell>
              <DataCell label="Status">
                <DeliveryStatus status={d.status} />
              </DataCell>
              <DataCell label="Attempts">{d.attempts}</DataCell>
              <DataCell label="Last answer">{d.response_status ?? d.error_code ?? ''}</DataCell>
              <DataCell label="Actions" hideLabel>
                <Button
                  size="xs"
                  variant="default"
                  loading={redeliver.isPending && redeliver.variables === d.id}
                  onClick={() => redeliver.mutate(d.id)}
                  aria-label={`Redeliver ${d.event_type} of ${exactTime(d.created_at)}`}
                >
                  Redeliver
                </Button>
              </DataCell>
            </DataRow>
          ))}
        </DataTable>
      )}
      <NextPageButton pages={deliveries}>Show older deliveries</NextPageButton>
    </>
  )
}
