import { Button, Group, Modal, SegmentedControl, Select, Stack, Text, TextInput } from '@mantine/core'
import { type FormEvent, type ReactNode, useState } from 'react'
import { RefusalAlert } from '../../../../components/error-alert.tsx'
import { checkLength } from '../../../../lib/field-errors.ts'
import { formatNumber } from '../../../../lib/format.ts'
import { BATCH_LIMITS } from '../../../../lib/limits.ts'
import { useFieldMessages } from '../../../../lib/use-field-messages.ts'
import {
  type Batch,
  type BatchDetail,
  type BatchOrders,
  useAddToBatch,
  useCreateBatch,
  useOpenBatches,
} from '../api/batches.ts'

/**
 * The board's dialogs that put pending production orders into a batch: the
 * orders ticked on the board, or every one matching a SKU and a due date. Each
 * goes into a new batch (named here) or an open one. Mounted while open, so
 * each opening starts empty.
 */

/** Where the orders go: a new batch or an open one. */
interface Target {
  kind: 'new' | 'open'
  name: string
  batchId: string
}

const LABELS = {
  name: 'Name',
  batch_id: 'Batch',
  'select.sku': 'SKU',
  'select.due_by': 'Due on or before',
}

/** Sends `orders` to the target batch; `onDone` with the batch as it now is. */
function useSendToBatch(onDone: (batch: Batch) => void) {
  const create = useCreateBatch()
  const add = useAddToBatch()
  const error = create.error ?? add.error
  return {
    busy: create.isPending || add.isPending,
    error,
    send: (target: Target, orders: BatchOrders) => {
      const done = { onSuccess: (detail: BatchDetail) => onDone(detail.batch) }
      if (target.kind === 'new') create.mutate({ name: target.name.trim(), ...orders }, done)
      else add.mutate({ batchId: target.batchId, ...orders }, done)
    },
  }
}

/** The dialog's frame: the choice of batch, then `children` (what is added), the refusal and the buttons. */
function BatchDialog({
  title,
  submitLabel,
  onClose,
  onDone,
  orders,
  check,
  children,
}: {
  title: string
  submitLabel: string
  onClose: () => void
  onDone: (batch: Batch) => void
  /** The orders to add, read once the form's checks pass. */
  orders: () => BatchOrders
  /** The form's own checks by field (undefined: fine). */
  check?: () => Record<string, string | undefined>
  /** What is added; `message` is a field's message, `changed` clears it. */
  children: (fields: {
    message: (field: string) => string | undefined
    changed: (field: string) => void
  }) => ReactNode
}) {
  const [target, setTarget] = useState<Target>({ kind: 'new', name: '', batchId: '' })
  const open = useOpenBatches(true)
  const sending = useSendToBatch(onDone)
  const messages = useFieldMessages(sending.error, LABELS)

  const submit = (e: FormEvent) => {
    e.preventDefault()
    const ok = messages.check({
      ...(check?.() ?? {}),
      name: target.kind === 'new' ? checkLength('Name', target.name.trim(), BATCH_LIMITS.name) : undefined,
      batch_id: target.kind === 'open' && !target.batchId ? 'Choose an open batch' : undefined,
    })
    if (ok) sending.send(target, orders())
  }
  const choices = (open.data ?? []).map((b) => ({
    value: b.id,
    label: `${b.name} (${formatNumber(b.orders)} ${b.orders === 1 ? 'order' : 'orders'})`,
  }))

  return (
    <Modal opened onClose={onClose} title={title} closeButtonProps={{ 'aria-label': 'Close' }}>
      <form onSubmit={submit} noValidate>
        <Stack gap="md">
          <SegmentedControl
            aria-label="Which batch"
            value={target.kind}
            onChange={(v) => setTarget((t) => ({ ...t, kind: v as Target['kind'] }))}
            data={[
              { value: 'new', label: 'A new batch' },
              { value: 'open', label: 'An open batch' },
            ]}
          />
          {target.kind === 'new' ? (
            <TextInput
              label="Name"
              description='For example "A2 posters, Tuesday"'
              withAsterisk
              maxLength={BATCH_LIMITS.name.max}
              value={target.name}
              error={messages.message('name')}
              onChange={(e) => {
                const name = e.currentTarget.value
                setTarget((t) => ({ ...t, name }))
                messages.changed('name')
              }}
              data-autofocus
            />
          ) : (
            <Select
              label="Batch"
              description="Orders join a batch until it starts"
              withAsterisk
              data={choices}
              value={target.batchId || null}
              error={messages.message('batch_id')}
              nothingFoundMessage="No open batch"
              placeholder={open.isPending ? 'Loading the open batches' : 'Choose an open batch'}
              searchable
              onChange={(v) => {
                setTarget((t) => ({ ...t, batchId: v ?? '' }))
                messages.changed('batch_id')
              }}
            />
          )}
          {children({ message: messages.message, changed: messages.changed })}
          <RefusalAlert refusal={messages.refusal} title="Nothing was added" />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={sending.busy}>
              {submitLabel}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  )
}

/** The orders ticked on the board, into a batch. */
export function AddToBatchDialog({
  ids,
  onClose,
  onDone,
}: {
  ids: string[]
  onClose: () => void
  onDone: (batch: Batch) => void
}) {
  const count = `${formatNumber(ids.length)} ${ids.length === 1 ? 'order' : 'orders'}`
  return (
    <BatchDialog
      title={`Add ${count} to a batch`}
      submitLabel={`Add ${count}`}
      onClose={onClose}
      onDone={onDone}
      orders={() => ({ production_order_ids: ids })}
    >
      {() => (
        <Text size="sm">
          The {count} ticked on the board join the batch; nothing else changes until the batch is started. If
          one of them cannot join (another operator batched or started it meanwhile), none is added.
        </Text>
      )}
    </BatchDialog>
  )
}

/** Every pending order of a SKU and/or due by a day (of the board's organization, if one is chosen), into a batch. */
export function BatchAllDialog({
  organization,
  onClose,
  onDone,
}: {
  organization: { id: string; name: string } | null
  onClose: () => void
  onDone: (batch: Batch) => void
}) {
  const [sku, setSku] = useState('')
  const [dueBy, setDueBy] = useState('')
  return (
    <BatchDialog
      title="Batch all pending orders"
      submitLabel="Add the matching orders"
      onClose={onClose}
      onDone={onDone}
      check={() => ({
        'select.sku':
          sku.trim() === '' && dueBy === ''
            ? 'Give a SKU, a due date or both'
            : sku.trim() === ''
              ? undefined
              : checkLength('SKU', sku.trim(), BATCH_LIMITS.sku),
      })}
      orders={() => ({
        select: {
          ...(sku.trim() ? { sku: sku.trim() } : {}),
          ...(dueBy ? { due_by: dueBy } : {}),
          ...(organization ? { organization_id: organization.id } : {}),
        },
      })}
    >
      {({ message, changed }) => (
        <>
          <Text size="sm">
            Every pending production order that is in no batch, not held for review and not waiting for its
            print check, and that matches, joins the batch, soonest due first, up to{' '}
            {formatNumber(BATCH_LIMITS.orders)} orders a batch.
            {organization ? ` Only orders of ${organization.name} (the board's organization filter).` : ''}
          </Text>
          <TextInput
            label="SKU"
            description="Orders with an item of this SKU"
            maxLength={BATCH_LIMITS.sku.max}
            value={sku}
            error={message('select.sku')}
            onChange={(e) => {
              setSku(e.currentTarget.value)
              changed('select.sku')
            }}
          />
          <TextInput
            type="date"
            label="Due on or before"
            value={dueBy}
            error={message('select.due_by')}
            onChange={(e) => {
              setDueBy(e.currentTarget.value)
              changed('select.due_by')
              changed('select.sku')
            }}
          />
        </>
      )}
    </BatchDialog>
  )
}
