import { Button, Loader, Paper, Table, Text, Title } from '@mantine/core'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { Time } from '../../../components/time.tsx'
import { formatNumber } from '../../../lib/format.ts'
import { useUnmatchedSkus } from '../api/products.ts'

/** Skus of received items that no product matches; developers start a product from one. */
export function UnmatchedSkus({ onCreate }: { onCreate: ((sku: string) => void) | undefined }) {
  const skus = useUnmatchedSkus()
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby="unmatched-heading">
      <Title order={2} size="h3" id="unmatched-heading">
        Unmatched SKUs
      </Title>
      <Text c="dimmed" size="sm" mb="sm">
        SKUs of items in your orders (test and live) that no product matches, most recently seen first.
      </Text>
      <ErrorAlert error={skus.error} />
      {skus.isPending ? (
        <Loader aria-label="Loading the unmatched SKUs" />
      ) : skus.data?.length === 0 ? (
        <Text>Every item with a SKU is linked to a product.</Text>
      ) : (
        <Table.ScrollContainer minWidth={560}>
          <Table striped aria-label="Unmatched SKUs">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>SKU</Table.Th>
                <Table.Th>Items</Table.Th>
                <Table.Th>Orders</Table.Th>
                <Table.Th>Last seen</Table.Th>
                {onCreate && <Table.Th>Action</Table.Th>}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {skus.data?.map((s) => (
                <Table.Tr key={s.sku}>
                  <Table.Td style={{ overflowWrap: 'anywhere' }}>{s.sku}</Table.Td>
                  <Table.Td>{formatNumber(s.items)}</Table.Td>
                  <Table.Td>{formatNumber(s.orders)}</Table.Td>
                  <Table.Td>
                    <Time value={s.last_seen_at} />
                  </Table.Td>
                  {onCreate && (
                    <Table.Td>
                      <Button
                        variant="light"
                        size="xs"
                        aria-label={`Create product for ${s.sku}`}
                        onClick={() => onCreate(s.sku)}
                      >
                        Create product
                      </Button>
                    </Table.Td>
                  )}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Paper>
  )
}
