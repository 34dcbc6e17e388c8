import { Anchor, Button, Group, List, Stack, Switch, Text } from '@mantine/core'
import { Link } from 'react-router'
import { StatusBadge } from '../../../../components/status-badge.tsx'
import { formatNumber } from '../../../../lib/format.ts'
import type { BoardEntry, ProductionStatus } from '../api/production.ts'
import type { Act, Confirmation } from './production-actions.tsx'

/**
 * The buttons that move a production order, on the board's rows and on the
 * production order page: its status, cancel, partner flag, and each item's
 * job (`act` from useProductionActions asks first where it cannot be undone).
 */

/** What the buttons read of a production order: a board entry, or the production order page's order. */
export interface ProductionSubject {
  production_order: { id: string; status: ProductionStatus; produced_by_partner: boolean }
  order: { id: string; external_order_id: string; source: string }
  held: boolean
  awaiting_preflight: readonly string[]
}

/** Who hears of an order's change: the organization's live endpoints for API orders; nobody for shop orders. */
function told(entry: Pick<ProductionSubject, 'order'>, event: string) {
  return entry.order.source === 'api'
    ? `The organization's live webhook endpoints receive ${event}.`
    : 'A shop order: no event is sent.'
}

/** What failing an order asks first: what happens to it and who is told. */
export function failConfirmation(entry: Pick<ProductionSubject, 'order'>): Confirmation {
  const ref = entry.order.external_order_id
  return {
    title: `Mark order ${ref} failed?`,
    text: `Production stops: the order and its unfinished items become failed, and the organization's members see it failed. ${told(entry, 'order.production_failed')} It can be started again from the Failed view.`,
    confirmLabel: 'Mark failed',
    cancelLabel: 'Keep it in production',
  }
}

export function Actions({ entry, act, busy }: { entry: ProductionSubject; act: Act; busy: boolean }) {
  const p = entry.production_order
  const ref = entry.order.external_order_id
  const status = (to: ProductionStatus, verb: string, confirm?: Confirmation) => (
    <Button
      size="xs"
      variant={to === 'failed' || to === 'pending' ? 'default' : 'filled'}
      disabled={busy}
      aria-label={`${verb}: ${ref}`}
      onClick={() =>
        act(
          { kind: 'status', productionOrderId: p.id, status: to, expected: p.status },
          `${verb}: ${ref}`,
          confirm,
        )
      }
    >
      {verb}
    </Button>
  )
  return (
    <Stack gap={6} align="flex-start">
      <Group gap={6}>
        {(p.status === 'pending' || p.status === 'failed') &&
          !entry.held &&
          entry.awaiting_preflight.length === 0 &&
          status('in_progress', 'Start production')}
        {!entry.held && entry.awaiting_preflight.length > 0 && (
          <Text size="xs">
            Startable once its files' print check is in (rule '{entry.awaiting_preflight[0]}' reads it)
          </Text>
        )}
        {entry.held && (
          <Text size="xs">
            Not startable until released:{' '}
            <Anchor component={Link} to={`/operator/orders/${entry.order.id}`} size="xs">
              open the order
            </Anchor>
          </Text>
        )}
        {p.status === 'in_progress' && status('completed', 'Mark completed')}
        {p.status === 'in_progress' && status('failed', 'Mark failed', failConfirmation(entry))}
        {p.status === 'cancelled' &&
          status('pending', 'Reopen order', {
            title: `Reopen order ${ref}?`,
            text: `It was cancelled${entry.order.source === 'api' ? ", and the organization's live webhook endpoints were sent order.cancelled" : ''}. Reopening moves it back to pending, so production can start again, and its members see it pending. ${entry.order.source === 'api' ? 'No event is sent now; starting production sends the endpoints order.production_started after the order.cancelled they have.' : 'A shop order: no event is sent.'}`,
            confirmLabel: 'Reopen order',
            cancelLabel: 'Keep it cancelled',
          })}
        {p.status !== 'cancelled' && (
          <Button
            size="xs"
            variant="default"
            color="red"
            disabled={busy}
            aria-label={`Cancel order: ${ref}`}
            onClick={() =>
              act({ kind: 'cancel', orderId: entry.order.id, expected: p.status }, `Cancel order: ${ref}`, {
                title: `Cancel order ${ref}?`,
                text: `Production stops and the order and its unfinished items become cancelled; the organization's members see it cancelled. ${told(entry, 'order.cancelled')} Only an operator can reopen it, from the Cancelled view.`,
                confirmLabel: 'Cancel the order',
                cancelLabel: 'Keep the order',
              })
            }
          >
            Cancel order
          </Button>
        )}
      </Group>
      <Switch
        size="xs"
        label="Produced by a partner"
        aria-label={`Produced by a partner: ${ref}`}
        checked={p.produced_by_partner}
        disabled={busy}
        onChange={(e) =>
          act(
            { kind: 'partner', productionOrderId: p.id, value: e.currentTarget.checked, expected: p.status },
            `${e.currentTarget.checked ? 'Partner produces' : 'Produced in house'}: ${ref}`,
          )
        }
      />
    </Stack>
  )
}

/** What completing an item's job reads of its production order. */
export type JobSubject = Pick<ProductionSubject, 'production_order' | 'held' | 'awaiting_preflight'> & {
  order: { external_order_id: string }
}

/** Whether the order's item jobs can be completed now: pending or in production, neither held nor waiting. */
export function jobsOpen(entry: Omit<JobSubject, 'order'>) {
  const { status } = entry.production_order
  return (
    !entry.held && entry.awaiting_preflight.length === 0 && (status === 'pending' || status === 'in_progress')
  )
}

/** Completes one item's job, where the order lets it (nothing for a completed job or an item without one). */
export function CompleteItem({
  entry,
  item,
  act,
  busy,
}: {
  entry: JobSubject
  item: { name: string; job: { id: string; status: string } | null }
  act: Act
  busy: boolean
}) {
  const { job } = item
  if (!job || job.status === 'completed' || !jobsOpen(entry)) return null
  const label = `Complete item ${item.name}: ${entry.order.external_order_id}`
  return (
    <Button
      size="compact-xs"
      variant="default"
      style={{ flexShrink: 0 }}
      disabled={busy}
      aria-label={label}
      onClick={() => act({ kind: 'job', jobId: job.id, expected: entry.production_order.status }, label)}
    >
      Complete item
    </Button>
  )
}

/** The board row's items, each with its job's state or the button that completes it. */
export function Items({ entry, act, busy }: { entry: BoardEntry; act: Act; busy: boolean }) {
  return (
    <List size="sm" listStyleType="none" spacing={4}>
      {entry.items.map((item) => (
        <List.Item key={item.id}>
          <Group gap={6} wrap="nowrap">
            <Text size="sm">
              {formatNumber(item.quantity)} × {item.name}
              {item.sku ? ` (${item.sku})` : ''}
            </Text>
            {item.job?.status === 'completed' ? (
              <StatusBadge color="green">done</StatusBadge>
            ) : (
              <CompleteItem entry={entry} item={item} act={act} busy={busy} />
            )}
          </Group>
        </List.Item>
      ))}
    </List>
  )
}
