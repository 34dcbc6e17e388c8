import { Button, Loader, Paper, Stack, Text, Title } from '@mantine/core'
import { useState } from 'react'
import { DataCell, DataRow, DataTable } from '../../../components/data-table.tsx'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { Time } from '../../../components/time.tsx'
import type { Product } from '../../../lib/api.ts'
import { useProducts } from '../api/products.ts'
import { describePrintSpecs } from '../lib/print-spec-words.ts'
import { PrintSpecDialog } from './print-spec-dialog.tsx'

/** The organization's products; developers and owners set each one's print specification. */
export function Catalog({ canEdit }: { canEdit: boolean }) {
  const products = useProducts()
  const [editing, setEditing] = useState<Product | null>(null)
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
        <DataTable label="Products" columns={['SKU', 'Name', 'Print specification', 'Added']}>
          {products.data?.map((p) => (
            <DataRow key={p.id}>
              <DataCell label="SKU" title style={{ overflowWrap: 'anywhere' }}>
                {p.sku}
              </DataCell>
              <DataCell label="Name" style={{ overflowWrap: 'anywhere' }}>
                {p.name}
              </DataCell>
              <DataCell label="Print specification">
                <Stack gap={2} align="flex-start">
                  {p.print_spec ? (
                    describePrintSpecs(p.print_spec).map((line) => (
                      <Text key={line} size="sm">
                        {line}
                      </Text>
                    ))
                  ) : (
                    <Text size="sm" c="dimmed">
                      None set
                    </Text>
                  )}
                  {canEdit && (
                    <Button
                      variant="subtle"
                      size="compact-sm"
                      aria-label={`Set print specification of ${p.sku}`}
                      onClick={() => setEditing(p)}
                    >
                      Set print specification
                    </Button>
                  )}
                </Stack>
              </DataCell>
              <DataCell label="Added">
                <Time value={p.created_at} />
              </DataCell>
            </DataRow>
          ))}
        </DataTable>
      )}
      {editing && <PrintSpecDialog product={editing} onClose={() => setEditing(null)} />}
    </Paper>
  )
}
