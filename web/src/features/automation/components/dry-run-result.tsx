import { Alert, Anchor, Box, Text } from '@mantine/core'
import { Link } from 'react-router'
import { DataCell, DataRow, DataTable } from '../../../components/data-table.tsx'
import { Time } from '../../../components/time.tsx'
import type { DryRun } from '../../../lib/api.ts'
import { formatNumber } from '../../../lib/format.ts'

/** What a dry run found: the count, then the orders it would have matched. */
export function DryRunResult({ result }: { result: DryRun }) {
  const orders = result.checked === 1 ? 'live order' : 'live orders'
  return (
    <Alert color="blue" variant="default" role="status" title="Dry run">
      {result.checked === 0 ? (
        <Text size="sm">There are no live orders yet to try this rule on.</Text>
      ) : (
        <Text size="sm">
          This rule would have matched {formatNumber(result.matched)} of your last{' '}
          {formatNumber(result.checked)} {orders}.
        </Text>
      )}
      {result.orders.length > 0 && (
        <Box mt="xs">
          <DataTable
            label="Orders the rule would have matched"
            striped={false}
            columns={['External id', 'Status', 'Created']}
          >
            {result.orders.map((o) => (
              <DataRow key={o.id}>
                <DataCell label="External id" title>
                  <Anchor component={Link} to={`/orders/${o.id}`}>
                    {o.external_order_id}
                  </Anchor>
                </DataCell>
                <DataCell label="Status">{o.status}</DataCell>
                <DataCell label="Created">
                  <Time value={o.created_at} />
                </DataCell>
              </DataRow>
            ))}
          </DataTable>
        </Box>
      )}
    </Alert>
  )
}
