import { Anchor, Group, Image, Paper, Stack, Text, Title } from '@mantine/core'
import { Personalization } from '../../../../components/personalization.tsx'
import { StatusBadge } from '../../../../components/status-badge.tsx'
import { formatNumber } from '../../../../lib/format.ts'
import { fileFacts } from '../../../orders/components/order-files.tsx'
import {
  isShownAsImage,
  type ProductionFile,
  type ProductionItem,
  productionFileUrl,
} from '../api/production.ts'

/**
 * A file to make the item from: a thumbnail (images, the sanitized SVG too,
 * in <img> where no script runs) and the download. An SVG's original is not
 * kept (acceptance stores it sanitized), so its download says so.
 */
function ProductionFileCard({
  productionOrderId,
  file,
}: {
  productionOrderId: string
  file: ProductionFile
}) {
  const name = file.name ?? 'file'
  const url = productionFileUrl(productionOrderId, file.upload_id)
  const svg = file.content_type === 'image/svg+xml'
  return (
    <Paper component="li" withBorder p="xs" radius="sm" w={220}>
      <Stack gap={4}>
        {isShownAsImage(file.content_type) && (
          <Image src={url} alt={`Thumbnail of ${name}`} h={120} fit="contain" loading="lazy" />
        )}
        <Text size="sm" fw={600} style={{ overflowWrap: 'anywhere' }}>
          {name}
        </Text>
        <Anchor
          href={url}
          download={name}
          size="sm"
          aria-label={`${svg ? 'Download sanitized SVG' : 'Download original'}: ${name}`}
        >
          {svg ? 'Download sanitized SVG' : 'Download original'}
        </Anchor>
        <Text size="xs" c="dimmed">
          {fileFacts(file)}
        </Text>
      </Stack>
    </Paper>
  )
}

/** One item to make: product, SKU, quantity, its job, every personalization field and every file. */
export function ProductionItemCard({
  productionOrderId,
  item,
  position,
}: {
  productionOrderId: string
  item: ProductionItem
  position: number
}) {
  const headingId = `item-${item.id}`
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby={headingId}>
      <Stack gap="sm">
        <Title order={3} size="h4" id={headingId}>
          Item {position}: {item.name}
        </Title>
        <Group gap="xl" style={{ rowGap: 'var(--mantine-spacing-xs)' }}>
          <Text size="sm">
            SKU: <strong>{item.sku ?? 'none'}</strong>
          </Text>
          <Text size="sm">
            Quantity: <strong>{formatNumber(item.quantity)}</strong>
          </Text>
          <Text size="sm">Product: {item.product_linked ? 'linked' : 'no product for this SKU'}</Text>
          <Group gap={6}>
            <Text size="sm">Job:</Text>
            <StatusBadge color={item.production_job?.status === 'completed' ? 'green' : 'gray'}>
              {item.production_job?.status ?? 'none'}
            </StatusBadge>
          </Group>
        </Group>
        <Personalization position={position} values={item.personalization} />
        <Title order={4} size="h5">
          Files
        </Title>
        {item.files.length === 0 ? (
          <Text c="dimmed">No files.</Text>
        ) : (
          <Group
            align="flex-start"
            gap="md"
            component="ul"
            aria-label={`Files of item ${position}`}
            style={{ listStyle: 'none', padding: 0, margin: 0 }}
          >
            {item.files.map((file) => (
              <ProductionFileCard key={file.upload_id} productionOrderId={productionOrderId} file={file} />
            ))}
          </Group>
        )}
      </Stack>
    </Paper>
  )
}
