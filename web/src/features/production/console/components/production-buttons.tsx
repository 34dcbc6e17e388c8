import { Alert, Anchor, Button, Code, Group, List, Stack, Switch, Text } from '@mantine/core'
import { Link } from 'react-router'
import { StatusBadge } from '../../../../components/status-badge.tsx'
import { Time } from '../../../../components/time.tsx'
import { formatNumber } from '../../../../lib/format.ts'
import type { BoardEntry, ProducedEvents, ProductionAction, ProductionStatus } from '../api/production.ts'

/** The production board's row parts: an order's items with their jobs, its actions, and what the last action did. */
export interface Outcome {
  label: string
  events: ProducedEvents
}

/** What the last action did: the events it recorded, or that it recorded none. */
export function LastAction({ outcome }: { outcome: Outcome | null }) {
  if (!outcome) return null
  return (
    <Alert variant="default" color="green" role="status" title={outcome.label}>
      {outcome.events.length === 0 ? (
        <Text size="sm">
          Recorded no event (partner flags never do; nor do shop orders, partner-produced items, or a status
          the order already had).
        </Text>
      ) : (
        <>
          <Text size="sm">
            Recorded {outcome.events.length === 1 ? 'this event' : 'these events'}, sent to the organization's
            live webhooks:
          </Text>
          <List size="sm">
            {outcome.events.map((e) => (
              <List.Item key={e.id}>
                <Code>{e.type}</Code> at <Time value={e.created_at} exact /> (event {e.id})
              </List.Item>
            ))}
          </List>
        </>
      )}
    </Alert>
  )
}

/** What an action that cannot be undone asks before it is done. */
export interface Confirmation {
  title: string
  text: string
  confirmLabel: string
  cancelLabel?: string
}

/** Asks first (with `confirm`) or acts at once. */
export type Act = (action: ProductionAction, label: string, confirm?: Confirmation) => void

/** Who hears of an order's change: the organization's live endpoints for API orders; nobody for shop orders. */
function told(entry: BoardEntry, event: string) {
  return entry.order.source === 'api'
    ? `The organization's live webhook endpoints receive ${event}.`
    : 'A shop order: no event is sent.'
}

export function Actions({ entry, act, busy }: { entry: BoardEntry; act: Act; busy: boolean }) {
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
        {p.status === 'in_progress' &&
          status('failed', 'Mark failed', {
            title: `Mark order ${ref} failed?`,
            text: `Production stops: the order and its unfinished items become failed, and the organization's members see it failed. ${told(entry, 'order.production_failed')} It can be started again from the Failed view.`,
            confirmLabel: 'Mark failed',
            cancelLabel: 'Keep it in production',
          })}
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

export function Items({ entry, act, busy }: { entry: BoardEntry; act: Act; busy: boolean }) {
  const p = entry.production_order
  const open =
    !entry.held &&
    entry.awaiting_preflight.length === 0 &&
    (p.status === 'pending' || p.status === 'in_progress')
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
              item.job &&
              open && (
                <Button
                  size="compact-xs"
                  variant="default"
                  style={{ flexShrink: 0 }}
                  disabled={busy}
                  aria-label={`Complete item ${item.name}: ${entry.order.external_order_id}`}
                  onClick={() =>
                    act(
                      { kind: 'job', jobId: item.job!.id, expected: p.status },
                      `Complete item ${item.name}: ${entry.order.external_order_id}`,
                    )
                  }
                >
                  Complete item
                </Button>
              )
            )}
          </Group>
        </List.Item>
      ))}
    </List>
  )
}
