import { Button, Loader, Paper, Text, Title } from '@mantine/core'
import { DataCell, DataRow, DataTable } from '../../../components/data-table.tsx'
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
        <DataTable
          label="Unmatched SKUs"
          columns={['SKU', 'Items', 'Orders', 'Last seen', ...(onCreate ? ['Action'] : [])]}
        >
          {skus.data?.map((s) => (
            <DataRow key={s.sku}>
              <DataCell label="SKU" title style={{ overflowWrap: 'anywhere' }}>
                {s.sku}
              </DataCell>
              <DataCell label="Items">{formatNumber(s.items)}</DataCell>
              <DataCell label="Orders">{formatNumber(s.orders)}</DataCell>
              <DataCell label="Last seen">
                <Time value={s.last_seen_at} />
              </DataCell>
              {onCreate && (
                <DataCell label="Action" hideLabel>
                  <Button
                    variant="light"
                    size="xs"
                    aria-label={`Create product for ${s.sku}`}
                    onClick={() => onCreate(s.sku)}
                  >
                    Create product
                  </Button>
                </DataCell>
              )}
            </DataRow>
          ))}
        </DataTable>
      )}
    </Paper>
  )
}
