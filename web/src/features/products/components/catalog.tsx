import { Loader, Paper, Table, Text, Title } from '@mantine/core'
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
        <Table.ScrollContainer minWidth={480}>
          <Table striped aria-label="Products">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>SKU</Table.Th>
                <Table.Th>Name</Table.Th>
                <Table.Th>Added</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {products.data?.map((p) => (
                <Table.Tr key={p.id}>
                  <Table.Td style={{ overflowWrap: 'anywhere' }}>{p.sku}</Table.Td>
                  <Table.Td style={{ overflowWrap: 'anywhere' }}>{p.name}</Table.Td>
                  <Table.Td>
                    <Time value={p.created_at} />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Paper>
  )
}
