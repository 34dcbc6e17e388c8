import { Anchor, Badge, Group, Paper, Stack, Text, Title } from '@mantine/core'
import type { ReactNode } from 'react'
import { Link } from 'react-router'
import { PRODUCTION_STATUS_WORDS } from '../../../components/order-statuses.ts'
import { Personalization } from '../../../components/personalization.tsx'
import type { DashboardOrder } from '../../../lib/api.ts'
import { formatMoney, formatNumber } from '../../../lib/format.ts'
import { OrderFiles } from './order-files.tsx'

type Item = DashboardOrder['items'][number]

/** One item: its product link, production status, personalization fields and files, all as text. */
export function OrderItem({
  orderId,
  who,
  item,
  currency,
  position,
  canCreateProduct,
  controls,
  fileControls,
}: {
  orderId: string
  who?: 'member' | 'operator'
  item: Item
  /** The order's currency, which its prices are in. */
  currency: string | null
  position: number
  canCreateProduct: boolean
  /** The page's change button for this item, when it may be changed. */
  controls?: ReactNode
  /** Removing and adding files, when they may be changed. */
  fileControls?: ReactNode
}) {
  const headingId = `item-${item.id}`
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby={headingId}>
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={3} size="h4" id={headingId}>
            Item {position}: {item.name}
          </Title>
          {controls}
        </Group>
        <Group gap="xl" style={{ rowGap: 'var(--mantine-spacing-xs)' }}>
          <Text size="sm">
            SKU: <strong>{item.sku ?? 'none'}</strong>
          </Text>
          <Text size="sm">Quantity: {formatNumber(item.quantity)}</Text>
          {item.price !== null && <Text size="sm">Unit price: {formatMoney(item.price, currency)}</Text>}
          <Text size="sm">
            Production:{' '}
            {item.production_status
              ? (PRODUCTION_STATUS_WORDS[item.production_status] ?? item.production_status).toLowerCase()
              : 'none (test order)'}
          </Text>
          {item.product_linked ? (
            <Badge color="green" variant="dot">
              Linked to a product
            </Badge>
          ) : (
            <Badge color="orange" variant="dot">
              {item.sku ? 'No product for this SKU' : 'No SKU: never linked'}
            </Badge>
          )}
          {!item.product_linked && item.sku && canCreateProduct && (
            <Anchor component={Link} to={`/products?sku=${encodeURIComponent(item.sku)}`} size="sm">
              Create product for {item.sku}
            </Anchor>
          )}
        </Group>
        <Personalization position={position} values={item.personalization} />
        <Title order={4} size="h5">
          Files
        </Title>
        <OrderFiles orderId={orderId} files={item.files} who={who} />
        {fileControls}
      </Stack>
    </Paper>
  )
}
