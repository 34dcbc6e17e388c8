import { Anchor, Box, Loader, SegmentedControl, Text } from '@mantine/core'
import { Link, useSearchParams } from 'react-router'
import { DataCell, DataRow, DataTable, useStacked } from '../../../../components/data-table.tsx'
import { ErrorAlert } from '../../../../components/error-alert.tsx'
import { NextPageButton } from '../../../../components/next-page-button.tsx'
import { Page } from '../../../../components/page.tsx'
import { StatusBadge } from '../../../../components/status-badge.tsx'
import { Time } from '../../../../components/time.tsx'
import { formatNumber } from '../../../../lib/format.ts'
import {
  BATCH_STATUS_COLOR,
  BATCH_STATUSES,
  type BatchStatus,
  batchStatusLabel,
  useBatches,
} from '../api/batches.ts'

const VIEWS = [['', 'All'], ...BATCH_STATUSES] as const

/** /operator/batches: the batches, newest first, of one status or all (kept in the address). */
export function BatchesRoute() {
  const [params, setParams] = useSearchParams()
  const status = (VIEWS.find(([k]) => k === params.get('status'))?.[0] ?? '') as BatchStatus | ''
  const batches = useBatches(status)
  const rows = batches.data?.pages.flatMap((p) => p.data) ?? []
  const stacked = useStacked()
  const what = status ? batchStatusLabel(status).toLowerCase() : ''

  return (
    <Page
      title="Batches"
      lead="Production orders made together, newest first. Orders join a batch on the production board while it is open; starting, completing or failing it moves each of its orders as its own status change would. Refreshed every 10 seconds."
    >
      <Box>
        <Text size="sm" fw={500} id="batches-status-label">
          Status
        </Text>
        <SegmentedControl
          aria-labelledby="batches-status-label"
          orientation={stacked ? 'vertical' : 'horizontal'}
          fullWidth={stacked}
          value={status}
          onChange={(v) => setParams(v ? { status: v } : {}, { replace: true })}
          data={VIEWS.map(([value, label]) => ({ value, label }))}
        />
      </Box>
      <Anchor component={Link} to="/operator/production" size="sm">
        Batch orders on the production board
      </Anchor>
      <ErrorAlert error={batches.error} />
      {batches.isPending ? (
        <Loader aria-label="Loading the batches" />
      ) : rows.length === 0 ? (
        <Text c="dimmed">{what ? `No batch ${what}.` : 'No batch yet.'}</Text>
      ) : (
        <DataTable
          label={what ? `Batches ${what}, newest first` : 'Batches, newest first'}
          caption
          columns={['Name', 'Status', 'Orders', 'Created by', 'Created', 'Started']}
        >
          {rows.map((b) => (
            <DataRow key={b.id}>
              <DataCell label="Name" rowHeader>
                <Anchor component={Link} to={`/operator/batches/${b.id}`} fw={600} size="sm">
                  {b.name}
                </Anchor>
              </DataCell>
              <DataCell label="Status">
                <StatusBadge color={BATCH_STATUS_COLOR[b.status] ?? 'gray'}>
                  {batchStatusLabel(b.status)}
                </StatusBadge>
              </DataCell>
              <DataCell label="Orders">{formatNumber(b.orders)}</DataCell>
              <DataCell label="Created by">{b.created_by}</DataCell>
              <DataCell label="Created">
                <Time value={b.created_at} exact />
              </DataCell>
              <DataCell label="Started">
                {b.started_at ? (
                  <Time value={b.started_at} exact />
                ) : (
                  <Text size="sm" c="dimmed" component="span">
                    Not started
                  </Text>
                )}
              </DataCell>
            </DataRow>
          ))}
        </DataTable>
      )}
      <NextPageButton pages={batches}>Show more batches</NextPageButton>
    </Page>
  )
}
