import { Alert, Anchor, Table, Text } from '@mantine/core'
import { Link } from 'react-router'
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
        <Table.ScrollContainer minWidth={360} mt="xs">
          <Table aria-label="Orders the rule would have matched">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>External id</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Created</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {result.orders.map((o) => (
                <Table.Tr key={o.id}>
                  <Table.Td>
                    <Anchor component={Link} to={`/orders/${o.id}`}>
                      {o.external_order_id}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>{o.status}</Table.Td>
                  <Table.Td>
                    <Time value={o.created_at} />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Alert>
  )
}
