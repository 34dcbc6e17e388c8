import { Anchor, Group, Image, Paper, Stack, Text, Title } from '@mantine/core'
import { Link } from 'react-router'
import { DataCell, DataRow, DataTable } from '../../../../components/data-table.tsx'
import { fieldValue } from '../../../../components/personalization.tsx'
import { StatusBadge } from '../../../../components/status-badge.tsx'
import { formatNumber } from '../../../../lib/format.ts'
import { thumbnailUrl, usePreflight } from '../../../preflight/api.ts'
import type { BatchDetail, BatchLine, BatchOrder } from '../api/batches.ts'
import { PRODUCTION_STATUS_COLOR, productionStatusLabel } from '../api/production.ts'
import type { Act } from './production-actions.tsx'
import { CompleteItem, type JobSubject } from './production-buttons.tsx'

/** A product's heading: "12 × Poster A2 (SKU POSTER-A2)". */
export const productTitle = (p: { quantity: number; name: string; sku: string | null }) =>
  `${formatNumber(p.quantity)} × ${p.name}${p.sku ? ` (SKU ${p.sku})` : ''}`

/** A line's files as thumbnails (the print check's, never the original), others by role. */
export function LineFiles({ line }: { line: BatchLine }) {
  const preflight = usePreflight('operator', line.order_id).data?.items.find(
    (i) => i.item_id === line.item_id,
  )
  if (line.files.length === 0) {
    return (
      <Text size="sm" c="dimmed" component="span">
        No files
      </Text>
    )
  }
  return (
    <Group gap="xs">
      {line.files.map((f, n) => {
        const check = preflight?.files.find((c) => c.upload_id === f.upload_id)
        const name = `file ${n + 1}${f.role ? ` (${f.role})` : ''} of order ${line.external_order_id}`
        return check?.thumbnail ? (
          <Image
            key={f.upload_id}
            src={thumbnailUrl('operator', line.order_id, f.upload_id)}
            alt={`Thumbnail of ${name}`}
            w={64}
            h={48}
            fit="contain"
            radius="sm"
            style={{ border: '1px solid var(--mantine-color-default-border)' }}
          />
        ) : (
          <Text key={f.upload_id} size="xs" c="dimmed" component="span">
            {f.role ?? 'File'} (no thumbnail)
          </Text>
        )
      })}
    </Group>
  )
}

function Personalization({ values }: { values: Record<string, unknown> }) {
  const fields = Object.entries(values)
  if (fields.length === 0) {
    return (
      <Text size="sm" c="dimmed" component="span">
        None
      </Text>
    )
  }
  return (
    <Stack gap={2}>
      {fields.map(([k, v]) => (
        <Text key={k} size="sm" style={{ overflowWrap: 'anywhere', whiteSpace: 'pre-wrap' }}>
          <strong>{k}:</strong> {fieldValue(v)}
        </Text>
      ))}
    </Stack>
  )
}

/** What completing a line's job reads of its order (the batch lists no print check wait: the service checks it). */
const subject = (o: BatchOrder): JobSubject => ({
  production_order: o.production_order,
  order: o.order,
  held: o.held,
  awaiting_preflight: [],
})

/** The batch's items by product: the summed quantity, then a line per item with its order and job. */
export function BatchProducts({ detail, act, busy }: { detail: BatchDetail; act: Act; busy: boolean }) {
  const byId = new Map(detail.orders.map((o) => [o.production_order.id, o]))
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby="products-heading">
      <Title order={2} size="h3" id="products-heading" mb="sm">
        Products
      </Title>
      {detail.products.length === 0 && <Text c="dimmed">No items: the batch has no orders.</Text>}
      <Stack gap="lg">
        {detail.products.map((p) => (
          <div key={`${p.sku ?? ''} ${p.name}`}>
            <Title order={3} size="h4" mb="xs">
              {productTitle(p)}
            </Title>
            <DataTable
              label={`Lines of ${p.name}`}
              columns={['Order', 'Quantity', 'Personalization', 'Files', 'Job']}
            >
              {p.lines.map((line) => {
                const order = byId.get(line.production_order_id)
                return (
                  <DataRow key={line.item_id}>
                    <DataCell label="Order" rowHeader>
                      <Anchor
                        component={Link}
                        to={`/operator/production/${line.production_order_id}`}
                        size="sm"
                      >
                        {line.external_order_id}
                      </Anchor>
                      <Text size="xs" component="span" display="block">
                        Item {line.position + 1}
                      </Text>
                    </DataCell>
                    <DataCell label="Quantity">{formatNumber(line.quantity)}</DataCell>
                    <DataCell label="Personalization" labelAbove>
                      <Personalization values={line.personalization} />
                    </DataCell>
                    <DataCell label="Files" labelAbove>
                      <LineFiles line={line} />
                    </DataCell>
                    <DataCell label="Job">
                      <Group gap={6}>
                        {line.job ? (
                          <StatusBadge color={PRODUCTION_STATUS_COLOR[line.job.status] ?? 'gray'}>
                            {productionStatusLabel(line.job.status)}
                          </StatusBadge>
                        ) : (
                          <Text size="sm" c="dimmed" component="span">
                            No job
                          </Text>
                        )}
                        {order && (
                          <CompleteItem
                            entry={subject(order)}
                            item={{ name: p.name, job: line.job }}
                            act={act}
                            busy={busy}
                          />
                        )}
                      </Group>
                    </DataCell>
                  </DataRow>
                )
              })}
            </DataTable>
          </div>
        ))}
      </Stack>
    </Paper>
  )
}
