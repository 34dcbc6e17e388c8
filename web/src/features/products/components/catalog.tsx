import { Button, Loader, Paper, Stack, Text, Title } from '@mantine/core'
import { useState } from 'react'
import { DataCell, DataRow, DataTable } from '../../../components/data-table.tsx'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { Time } from '../../../components/time.tsx'
import type { Product } from '../../../lib/api.ts'
import { useProducts } from '../api/products.ts'
import { describePrintSpecs } from '../lib/print-spec-words.ts'
import { LeadTimeField, leadTimeWords } from './lead-time-field.tsx'
import { PrintSpecDialog } from './print-spec-dialog.tsx'

/** The organization's products; developers and owners set each one's print specification and lead time. */
export function Catalog({ canEdit }: { canEdit: boolean }) {
  const products = useProducts()
  const [editing, setEditing] = useState<Product | null>(null)
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby="catalog-heading">
      <Title order={2} size="h3" id="catalog-heading" mb="sm">
        Catalog
      </Title>
      <Text size="sm" mb="sm">
        Lead time: the working days production takes, counted from the day an order is placed to the day it is
        due; an order is due its items' longest. Left blank, a product takes the platform's default lead time,
        which the platform's operators set in its production calendar.
      </Text>
      <ErrorAlert error={products.error} />
      {products.isPending ? (
        <Loader aria-label="Loading the catalog" />
      ) : products.data?.length === 0 ? (
        <Text>No products yet.</Text>
      ) : (
        <DataTable label="Products" columns={['SKU', 'Name', 'Print specification', 'Lead time', 'Added']}>
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
              <DataCell label="Lead time">
                {canEdit ? (
                  <LeadTimeField product={p} />
                ) : (
                  <Text size="sm">{leadTimeWords(p.lead_time_days)}</Text>
                )}
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
