import { Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core'
import type { ReactNode } from 'react'
import { Fact } from '../../../components/fact.tsx'
import { StatusBadge } from '../../../components/status-badge.tsx'
import { Time, useNow } from '../../../components/time.tsx'
import { formatMoney } from '../../../lib/format.ts'
import { formatDay, isLate, localDay } from '../../production/lib/due-words.ts'
import { itemsNet, quantitiesChanged } from '../lib/items-net.ts'

/**
 * The parts an order's page and the production order's page both show: the
 * Summary card, the facts of the order in it (each page in its own order),
 * and the Items section.
 */

/** The Summary card: its heading with `badges` (and any controls) beside it, then the facts (`children`). */
export function OrderSummary({ badges, children }: { badges: ReactNode; children: ReactNode }) {
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby="summary-heading">
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h3" id="summary-heading">
          Summary
        </Title>
        <Group gap="xs">{badges}</Group>
      </Group>
      <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }}>{children}</SimpleGrid>
    </Paper>
  )
}

/** The customer's name, email and phone ("—" for what the order has not). */
export function CustomerFacts({
  customer,
}: {
  customer: { name: string; email: string | null; phone: string | null }
}) {
  return (
    <>
      <Fact label="Customer">{customer.name}</Fact>
      <Fact label="Email">{customer.email ?? '—'}</Fact>
      <Fact label="Phone">{customer.phone ?? '—'}</Fact>
    </>
  )
}

/** When the order was placed and when it last changed. */
export function OrderTimeFacts({ order }: { order: { ordered_at: string; updated_at: string } }) {
  return (
    <>
      <Fact label="Ordered">
        <Time value={order.ordered_at} />
      </Fact>
      <Fact label="Last change">
        <Time value={order.updated_at} />
      </Fact>
    </>
  )
}

/**
 * When production is due: the date (in the production calendar), "Late"
 * beside it once the day has passed while production is open.
 */
export function DueFact({
  order,
}: {
  order: { is_test: boolean; due_on: string | null; production_order: { status: string } | null }
}) {
  const today = localDay(new Date(useNow()))
  const { due_on: dueOn } = order
  return (
    <Fact label="Due">
      {dueOn === null ? (
        order.is_test ? (
          'None (test order)'
        ) : (
          'Not dated yet'
        )
      ) : (
        <>
          <time dateTime={dueOn}>{formatDay(dueOn)}</time>{' '}
          {isLate(dueOn, order.production_order?.status, today) && (
            <StatusBadge color="red" inline>
              Late
            </StatusBadge>
          )}
        </>
      )}
    </Fact>
  )
}

/**
 * The order's total in its currency ("—" without one): what the customer
 * paid, never recomputed. Given the order's change history, once a quantity
 * changed since the order arrived it says so and shows the items' net sum now.
 */
export function TotalFact({
  order,
  history,
}: {
  order: {
    total_amount: number | null
    currency: string | null
    items: readonly { quantity: number; price: number | null }[]
  }
  history?: readonly { action: string; changed: string[] }[] | undefined
}) {
  const changed = history !== undefined && quantitiesChanged(history)
  const net = changed ? itemsNet(order.items) : null
  return (
    <Fact label="Total">
      {order.total_amount === null ? '—' : formatMoney(order.total_amount, order.currency)}
      {net && (
        <>
          {order.total_amount !== null && (
            <Text component="span" display="block" size="sm" c="dimmed">
              paid by the customer; items changed since
            </Text>
          )}
          <Text component="span" display="block" size="sm">
            Items now: {formatMoney(Number(net.amount), order.currency)} net
            {net.unpriced > 0 &&
              ` (${net.unpriced} ${net.unpriced === 1 ? 'item' : 'items'} without a price left out)`}
          </Text>
        </>
      )}
    </Fact>
  )
}

/** The Items section: "Items (n)", then a card per item (`children`). */
export function OrderItems({ count, children }: { count: number; children: ReactNode }) {
  return (
    <Stack gap="md" component="section" aria-labelledby="items-heading">
      <Title order={2} size="h3" id="items-heading">
        Items ({count})
      </Title>
      {children}
    </Stack>
  )
}
