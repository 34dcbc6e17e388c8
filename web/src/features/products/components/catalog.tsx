import { Loader, Paper, Text, Title } from '@mantine/core'
import { DataCell, DataRow, DataTable } from '../../../components/data-table.tsx'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { Time } from '../../../components/time.tsx'
import { useProducts } from '../api/products.ts'

export function Catalog() {
  const products = useProducts()
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby="catalog-heading">
      <Title order={2} size="h3" id="catalog-heading" mb="sm">
        Catalog
      </Title>
      <ErrorAlert error={products.error} />
      {products.isPending ? (
        <Loader aria-label="Loading the catalog" />
      ) : products.data?.length === 0 ? (
        <Text>No products yet.</Text>
      ) : (
        <DataTable label="Products" columns={['SKU', 'Name', 'Added']}>
          {products.data?.map((p) => (
            <DataRow key={p.id}>
              <DataCell label="SKU" title style={{ overflowWrap: 'anywhere' }}>
                {p.sku}
              </DataCell>
              <DataCell label="Name" style={{ overflowWrap: 'anywhere' }}>
                {p.name}
              </DataCell>
              <DataCell label="Added">
                <Time value={p.created_at} />
              </DataCell>
            </DataRow>
          ))}
        </DataTable>
      )}
    </Paper>
  )
}
