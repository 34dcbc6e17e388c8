import { Alert, Anchor, Button, Checkbox, Group, Text } from '@mantine/core'
import { type ReactNode, useState } from 'react'
import { Link } from 'react-router'
import { StatusBadge } from '../../../../components/status-badge.tsx'
import { formatNumber } from '../../../../lib/format.ts'
import { BATCH_STATUS_COLOR, type Batch, batchStatusLabel } from '../api/batches.ts'
import type { BoardEntry, BoardFilters } from '../api/production.ts'
import { AddToBatchDialog, BatchAllDialog } from './batch-dialogs.tsx'

/** Whether an entry may join a batch: pending, in none, neither held nor waiting for its print check. */
export const joinable = (e: BoardEntry) =>
  e.production_order.status === 'pending' && !e.held && e.awaiting_preflight.length === 0 && e.batch === null

/** The batch an entry is in, as a link to the batch's page. */
export function EntryBatch({ entry }: { entry: BoardEntry }) {
  const { batch } = entry
  if (!batch) return null
  return (
    <Anchor
      component={Link}
      to={`/operator/batches/${batch.id}`}
      size="xs"
      display="block"
      mt={4}
      aria-label={`Batch ${batch.name} (${batchStatusLabel(batch.status).toLowerCase()}): ${entry.order.external_order_id}`}
    >
      <StatusBadge color={BATCH_STATUS_COLOR[batch.status] ?? 'gray'}>Batch: {batch.name}</StatusBadge>
    </Anchor>
  )
}

/**
 * The board's batching: a checkbox on each pending order that may join a
 * batch (and one for all of them shown), **Add to batch…** for the ticked
 * ones and **Batch all pending…** for every one matching a SKU or a due date;
 * after either, which batch they joined.
 */
export function useBoardBatching({
  entries,
  filters,
  organization,
}: {
  entries: BoardEntry[]
  filters: BoardFilters
  organization: { id: string; name: string } | null
}): {
  /** Whether the rows have a checkbox (the pending view). */
  selecting: boolean
  checkbox: (entry: BoardEntry) => ReactNode
  toolbar: ReactNode
  notice: ReactNode
} {
  const [ticked, setTicked] = useState<ReadonlySet<string>>(new Set())
  const [dialog, setDialog] = useState<'add' | 'all' | null>(null)
  const [done, setDone] = useState<Batch | null>(null)
  const selecting = filters.status === 'pending'
  const candidates = selecting ? entries.filter(joinable).map((e) => e.production_order.id) : []
  const ids = candidates.filter((id) => ticked.has(id))
  const finished = (batch: Batch) => {
    setDialog(null)
    setTicked(new Set())
    setDone(batch)
  }
  const toggle = (id: string, on: boolean) =>
    setTicked((t) => {
      const next = new Set(t)
      if (on) next.add(id)
      else next.delete(id)
      return next
    })

  const checkbox = (e: BoardEntry) => (
    <Checkbox
      aria-label={`Select order ${e.order.external_order_id}`}
      disabled={!joinable(e)}
      checked={ticked.has(e.production_order.id) && joinable(e)}
      onChange={(ev) => toggle(e.production_order.id, ev.currentTarget.checked)}
    />
  )

  const toolbar = (
    <Group gap="sm" align="center">
      {selecting && (
        <>
          <Checkbox
            label={`Select all ${formatNumber(candidates.length)} shown that can join a batch`}
            disabled={candidates.length === 0}
            checked={candidates.length > 0 && ids.length === candidates.length}
            indeterminate={ids.length > 0 && ids.length < candidates.length}
            onChange={(ev) => setTicked(new Set(ev.currentTarget.checked ? candidates : []))}
          />
          <Button size="xs" disabled={ids.length === 0} onClick={() => setDialog('add')}>
            {ids.length === 0 ? 'Add to batch…' : `Add ${formatNumber(ids.length)} to batch…`}
          </Button>
        </>
      )}
      <Button size="xs" variant="default" onClick={() => setDialog('all')}>
        Batch all pending…
      </Button>
      <Anchor component={Link} to="/operator/batches" size="sm">
        Batches
      </Anchor>
      {dialog === 'add' && <AddToBatchDialog ids={ids} onClose={() => setDialog(null)} onDone={finished} />}
      {dialog === 'all' && (
        <BatchAllDialog organization={organization} onClose={() => setDialog(null)} onDone={finished} />
      )}
    </Group>
  )

  const notice = done && (
    <Alert variant="default" color="green" role="status" title={`Batch ${done.name}`}>
      <Text size="sm">
        The batch now holds {formatNumber(done.orders)} {done.orders === 1 ? 'order' : 'orders'}; nothing else
        changes until it is started.{' '}
        <Anchor component={Link} to={`/operator/batches/${done.id}`} size="sm">
          Open batch {done.name}
        </Anchor>{' '}
        to start it.
      </Text>
    </Alert>
  )

  return { selecting, checkbox, toolbar, notice }
}
