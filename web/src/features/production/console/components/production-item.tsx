import { Anchor, Group, Image, Paper, Stack, Text, Title } from '@mantine/core'
import type { ReactNode } from 'react'
import { Personalization } from '../../../../components/personalization.tsx'
import { StatusBadge } from '../../../../components/status-badge.tsx'
import { formatNumber } from '../../../../lib/format.ts'
import { fileFacts } from '../../../orders/components/order-files.tsx'
import { type PreflightFile, thumbnailUrl, usePreflight } from '../../../preflight/api.ts'
import { PreflightBadge, PreflightDetails } from '../../../preflight/components/preflight-badge.tsx'
import { type ProductionFile, type ProductionItem, productionFileUrl } from '../api/production.ts'

/**
 * A file to make the item from: the service's thumbnail, the download and its
 * print check. An SVG's original is not kept (acceptance stores it
 * sanitized), so its download says so.
 */
function ProductionFileCard({
  productionOrderId,
  orderId,
  file,
  check,
}: {
  productionOrderId: string
  orderId: string
  file: ProductionFile
  check: PreflightFile | undefined
}) {
  const name = file.name ?? 'file'
  const url = productionFileUrl(productionOrderId, file.upload_id)
  const svg = file.content_type === 'image/svg+xml'
  return (
    <Paper component="li" withBorder p="xs" radius="sm" w={240}>
      <Stack gap={4}>
        {check?.thumbnail && (
          <Image
            src={thumbnailUrl('operator', orderId, file.upload_id)}
            alt={`Thumbnail of ${name}`}
            h={120}
            fit="contain"
            loading="lazy"
          />
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
        {check && <PreflightDetails file={check} />}
      </Stack>
    </Paper>
  )
}

/**
 * One item to make: product, SKU, quantity, its job, every personalization
 * field and every file; `action` beside the job (the button completing it).
 */
export function ProductionItemCard({
  productionOrderId,
  orderId,
  item,
  position,
  action,
}: {
  productionOrderId: string
  orderId: string
  item: ProductionItem
  position: number
  action?: ReactNode
}) {
  const headingId = `item-${item.id}`
  const preflight = usePreflight('operator', orderId).data?.items.find((i) => i.item_id === item.id)
  const checked = new Map(preflight?.files.map((f) => [f.upload_id, f]))
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
            {action}
          </Group>
        </Group>
        <Personalization position={position} values={item.personalization} />
        <Group gap="sm">
          <Title order={4} size="h5">
            Files
          </Title>
          {preflight && preflight.files.length > 0 && <PreflightBadge status={preflight.status} />}
        </Group>
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
              <ProductionFileCard
                key={file.upload_id}
                productionOrderId={productionOrderId}
                orderId={orderId}
                file={file}
                check={checked.get(file.upload_id)}
              />
            ))}
          </Group>
        )}
      </Stack>
    </Paper>
  )
}
