import { Alert, Button, Code, Group, List, Modal, Stack, Text, Textarea } from '@mantine/core'
import { type FormEvent, useState } from 'react'
import { useNavigate } from 'react-router'
import { ConfirmModal } from '../../../../components/confirm-modal.tsx'
import { ErrorAlert } from '../../../../components/error-alert.tsx'
import { Time } from '../../../../components/time.tsx'
import { ApiError } from '../../../../lib/api.ts'
import { checkLength } from '../../../../lib/field-errors.ts'
import { formatNumber } from '../../../../lib/format.ts'
import { BATCH_LIMITS } from '../../../../lib/limits.ts'
import {
  type BatchActed,
  type BatchAction,
  type BatchDetail,
  useBatchAction,
  useDeleteBatch,
} from '../api/batches.ts'
import { productionStatusLabel } from '../api/production.ts'

const orders = (n: number) => `${formatNumber(n)} ${n === 1 ? 'order' : 'orders'}`

/** What each action does: the batch statuses it acts from, the orders it moves, their event. */
const ACTIONS: Record<
  BatchAction,
  { verb: string; again: string; done: string; from: string[]; moves: string[]; to: string; event: string }
> = {
  start: {
    verb: 'Start',
    again: 'Start the rest',
    done: 'started',
    from: ['open', 'in_progress'],
    moves: ['pending'],
    to: 'in production',
    event: 'order.production_started',
  },
  complete: {
    verb: 'Complete',
    again: 'Complete the rest',
    done: 'completed',
    from: ['in_progress', 'completed'],
    moves: ['in_progress'],
    to: 'completed',
    event: 'order.production_completed',
  },
  fail: {
    verb: 'Fail',
    again: 'Fail the rest',
    done: 'failed',
    from: ['in_progress', 'failed'],
    moves: ['pending', 'in_progress'],
    to: 'failed',
    event: 'order.production_failed',
  },
}
/** The batch status an action first acts from (after it, the action only moves what is left). */
const FIRST: Record<BatchAction, string> = { start: 'open', complete: 'in_progress', fail: 'in_progress' }

/** The orders an action would move now (a start leaves held orders as they are). */
function movable(detail: BatchDetail, action: BatchAction) {
  return detail.orders.filter(
    (o) => ACTIONS[action].moves.includes(o.production_order.status) && !(action === 'start' && o.held),
  )
}

/** What the confirmation says: what happens to the orders and who is told. */
function consequence(detail: BatchDetail, action: BatchAction): string {
  const n = movable(detail, action).length
  const rule = ACTIONS[action]
  const { to } = rule
  const told =
    n === 0
      ? 'No order moves, so no event is sent.'
      : `${n === 1 ? 'It moves' : 'Each moves'} as its own status change would: each organization's live webhook endpoints receive ${rule.event} for ${n === 1 ? 'it' : 'each'} (shop orders send none), and its members see it ${to}.`
  const rest =
    action === 'start'
      ? ' Orders held for review or waiting for their print check stay pending. Once started, orders no longer join or leave the batch, and it cannot be deleted.'
      : action === 'complete'
        ? ' Orders not started stay as they are.'
        : ' They can be started again, one by one, from the Failed view of the board.'
  return `${orders(n)} move to ${to}. ${told}${rest}`
}

/** The actions a batch offers now: the first time from its status, again while something is left. */
function offered(detail: BatchDetail): BatchAction[] {
  return (Object.keys(ACTIONS) as BatchAction[]).filter(
    (a) =>
      ACTIONS[a].from.includes(detail.batch.status) &&
      (detail.batch.status === FIRST[a] || movable(detail, a).length > 0),
  )
}

/** What the last action did to each order, and the events it recorded. */
function Results({ acted, action }: { acted: BatchActed; action: BatchAction }) {
  const count = (o: string) => acted.results.filter((r) => r.outcome === o).length
  const words = { changed: 'moved now', unchanged: 'already so', skipped: 'left as it is' }
  return (
    <Alert
      variant="default"
      color={count('skipped') > 0 ? 'yellow' : 'green'}
      role="status"
      title={`Batch ${ACTIONS[action].done}: ${formatNumber(count('changed'))} moved, ${formatNumber(count('unchanged'))} already so, ${formatNumber(count('skipped'))} left as they are`}
    >
      <List size="sm" aria-label="What happened to each order">
        {acted.results.map((r) => (
          <List.Item key={r.production_order_id}>
            Order {r.external_order_id}: {words[r.outcome]} ({productionStatusLabel(r.status).toLowerCase()})
            {r.reason ? `: ${r.reason}` : ''}
          </List.Item>
        ))}
      </List>
      <Text size="sm" mt="xs">
        {acted.events.length === 0
          ? 'Recorded no event.'
          : `Recorded ${acted.events.length === 1 ? 'this event' : `these ${formatNumber(acted.events.length)} events`}, sent to the organizations' live webhooks:`}
      </Text>
      {acted.events.length > 0 && (
        <List size="sm">
          {acted.events.map((e) => (
            <List.Item key={e.id}>
              <Code>{e.type}</Code> at <Time value={e.created_at} exact /> (event {e.id})
            </List.Item>
          ))}
        </List>
      )}
    </Alert>
  )
}

/** The question before an action: what happens and who is told; failing asks why, for the audit log. */
function AskFirst({
  detail,
  action,
  busy,
  onCancel,
  onConfirm,
}: {
  detail: BatchDetail
  action: BatchAction
  busy: boolean
  onCancel: () => void
  onConfirm: (reason: string) => void
}) {
  const [reason, setReason] = useState('')
  const [problem, setProblem] = useState<string>()
  const rule = ACTIONS[action]
  const submit = (e: FormEvent) => {
    e.preventDefault()
    const found = checkLength('Reason', reason.trim(), BATCH_LIMITS.reason)
    setProblem(found)
    if (!found) onConfirm(reason.trim())
  }
  return (
    <Modal
      opened
      onClose={onCancel}
      title={`${rule.verb} batch ${detail.batch.name}?`}
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      <form onSubmit={submit} noValidate>
        <Stack gap="md">
          <Text>{consequence(detail, action)} This cannot be undone.</Text>
          {action === 'fail' && (
            <Textarea
              label="Reason"
              description="Optional, kept in the audit log"
              maxLength={BATCH_LIMITS.reason.max}
              autosize
              minRows={2}
              value={reason}
              error={problem}
              onChange={(e) => setReason(e.currentTarget.value)}
            />
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onCancel} data-autofocus>
              Keep it as it is
            </Button>
            <Button type="submit" color="red.9" loading={busy}>
              {rule.verb} the batch
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  )
}

/**
 * The batch's buttons (start, complete, fail; delete while open), each asking
 * first, and what the last did. At a station (`stationId`): large buttons,
 * the station named in the audit entries, no Delete (the floor makes
 * batches, it does not plan them), and `onActed` hears what each did.
 */
export function BatchActions({
  detail,
  stationId,
  onActed,
}: {
  detail: BatchDetail
  stationId?: string
  onActed?: (action: BatchAction, acted: BatchActed) => void
}) {
  const batchId = detail.batch.id
  const act = useBatchAction(batchId, stationId)
  const remove = useDeleteBatch(batchId)
  const navigate = useNavigate()
  const [asking, setAsking] = useState<BatchAction | 'delete' | null>(null)
  const [last, setLast] = useState<{ action: BatchAction; acted: BatchActed } | null>(null)
  const actions = offered(detail)
  const perform = (action: BatchAction, reason: string) => {
    setLast(null)
    act.mutate(
      { action, reason },
      {
        onSuccess: (acted) => {
          setLast({ action, acted })
          onActed?.(action, acted)
        },
        onSettled: () => setAsking(null),
      },
    )
  }
  const open = detail.batch.status === 'open' && !stationId
  const error = act.error ?? remove.error
  return (
    <Stack gap="sm">
      <Group gap="sm">
        {actions.map((a) => (
          <Button
            key={a}
            size={stationId ? 'xl' : undefined}
            variant={a === 'fail' ? 'default' : 'filled'}
            disabled={act.isPending}
            onClick={() => {
              act.reset()
              setAsking(a)
            }}
          >
            {detail.batch.status === FIRST[a] ? `${ACTIONS[a].verb} batch` : ACTIONS[a].again}
          </Button>
        ))}
        {open && (
          <Button
            variant="default"
            color="red"
            disabled={remove.isPending}
            onClick={() => {
              remove.reset()
              setAsking('delete')
            }}
          >
            Delete batch
          </Button>
        )}
      </Group>
      {last && <Results acted={last.acted} action={last.action} />}
      <ErrorAlert
        error={error}
        title={
          error instanceof ApiError && error.code === 'production_conflict'
            ? 'Changed meanwhile: nothing was done'
            : undefined
        }
      />
      {asking && asking !== 'delete' && (
        <AskFirst
          detail={detail}
          action={asking}
          busy={act.isPending}
          onCancel={() => setAsking(null)}
          onConfirm={(reason) => perform(asking, reason)}
        />
      )}
      <ConfirmModal
        opened={asking === 'delete'}
        title={`Delete batch ${detail.batch.name}?`}
        onCancel={() => setAsking(null)}
        cancelLabel="Keep the batch"
        confirmLabel="Delete the batch"
        busy={remove.isPending}
        onConfirm={() =>
          remove.mutate(undefined, {
            onSuccess: () => navigate('/operator/batches', { replace: true }),
            onSettled: () => setAsking(null),
          })
        }
      >
        Its {orders(detail.orders.length)} leave it and may join another batch; nothing else changes and no
        event is sent. The audit log keeps that it was made and deleted. This cannot be undone.
      </ConfirmModal>
    </Stack>
  )
}
