import { Anchor, Code, Loader, Text } from '@mantine/core'
import { Link, useSearchParams } from 'react-router'
import { DataCell, DataRow, DataTable } from '../../../components/data-table.tsx'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { NextPageButton } from '../../../components/next-page-button.tsx'
import { Page } from '../../../components/page.tsx'
import { Time } from '../../../components/time.tsx'
import { usePageEnvironment } from '../../../lib/environment.ts'
import { EnvironmentSwitch } from '../../webhooks/components/environment-switch.tsx'
import { FILTER_NAMES, type RequestFilters, requestHref, useRequests } from '../api/requests.ts'
import { RequestFiltersForm } from '../components/request-filters.tsx'
import { formatDuration, RequestStatus } from '../components/request-status.tsx'

/** /requests: the organization's /v1 requests of one environment, newest first, filtered by the address. */
export function RequestsRoute() {
  const [params, setParams] = useSearchParams()
  const env = usePageEnvironment()
  const filters = Object.fromEntries(
    FILTER_NAMES.map((name) => [name, params.get(name) ?? '']),
  ) as RequestFilters
  const requests = useRequests(env, filters)
  const rows = requests.data?.pages.flatMap((p) => p.data) ?? []

  const set = (changes: Partial<RequestFilters>) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current)
        for (const [name, value] of Object.entries(changes)) {
          if (value) next.set(name, value)
          else next.delete(name)
        }
        return next
      },
      { replace: true },
    )
  const envName = env === 'live' ? 'Live' : 'Test'
  return (
    <Page
      title="Requests"
      lead="Every /v1 request made with your API keys in the last 30 days, newest first. The list refreshes every few seconds."
    >
      <EnvironmentSwitch />
      {/* Remounted when the address's typed filters change (a link, Clear filters), so the fields show them. */}
      <RequestFiltersForm
        key={[filters.error_code, filters.path, filters.request_id, filters.order_id].join('\n')}
        env={env}
        filters={filters}
        onChange={set}
      />
      <ErrorAlert error={requests.error} />
      {requests.isPending ? (
        <Loader aria-label="Loading the requests" />
      ) : rows.length === 0 ? (
        <Text>No {env} requests match.</Text>
      ) : (
        <DataTable
          label={`${envName} requests, newest first`}
          caption
          columns={['Time', 'Request', 'Status', 'Error code', 'Duration', 'Key']}
        >
          {rows.map((r) => (
            <DataRow key={r.id}>
              <DataCell label="Time" style={{ whiteSpace: 'nowrap' }}>
                <Time value={r.created_at} exact />
              </DataCell>
              <DataCell label="Request" title style={{ overflowWrap: 'anywhere' }}>
                <Anchor component={Link} to={requestHref(r)} size="sm">
                  {r.method} {r.path}
                </Anchor>
              </DataCell>
              <DataCell label="Status">
                <RequestStatus status={r.status} />
              </DataCell>
              <DataCell label="Error code">{r.error_code && <Code>{r.error_code}</Code>}</DataCell>
              <DataCell label="Duration" style={{ whiteSpace: 'nowrap' }}>
                {formatDuration(r.duration_ms)}
              </DataCell>
              <DataCell label="Key" style={{ whiteSpace: 'nowrap' }}>
                {r.key_prefix}…
              </DataCell>
            </DataRow>
          ))}
        </DataTable>
      )}
      <NextPageButton pages={requests}>Show older requests</NextPageButton>
    </Page>
  )
}
