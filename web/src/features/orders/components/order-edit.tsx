import { Alert, Button, Group, Modal, type ModalProps, Stack, Text, TextInput } from '@mantine/core'
import { type FormEvent, type ReactNode, useState } from 'react'
import { ConfirmModal } from '../../../components/confirm-modal.tsx'
import { ErrorAlert, RefusalAlert } from '../../../components/error-alert.tsx'
import type { DashboardOrder } from '../../../lib/api.ts'
import type { readRefusal } from '../../../lib/field-errors.ts'
import { type Editor, useOrderEdits } from '../api/order-edit.ts'

type Item = DashboardOrder['items'][number]
/** What an item's controls (ChangeItem, ItemFiles) take: the order, the item, its place (from 1) and who edits. */
export type ItemControlProps = { order: DashboardOrder; item: Item; position: number; who: Editor }

/**
 * What the page may change: members (owners, developers) while production
 * has not started, operators always; a finished order is only looked at.
 */
export function editPolicy(order: DashboardOrder, who: Editor) {
  const production = order.production_order?.status
  const finished = order.status === 'completed' || order.status === 'cancelled'
  const started = production !== undefined && production !== 'pending'
  const canEdit = !finished && (who === 'operator' || !started)
  const reason = finished
    ? `This order is ${order.status}: it can no longer be changed.`
    : started && who === 'member'
      ? `Production has started (${production}): the customer and the items can no longer be changed here, because what is being made would no longer match. The operator can still change the order; ask them.`
      : null
  const canCancel = !finished && !order.is_test
  const cancelNote = order.is_test
    ? 'Test orders never start production, so there is nothing to cancel: they stay pending.'
    : null
  return { canEdit, reason, canCancel, cancelNote }
}

/** Who an order's change reaches: its organization's live webhook endpoints (live API orders only). */
function toldOf(order: DashboardOrder, who: Editor, event: string) {
  if (order.is_test || order.source !== 'api') return 'It sends no webhook event (only live API orders do).'
  const endpoints =
    who === 'member' ? 'Your live webhook endpoints' : "The organization's live webhook endpoints"
  return `${endpoints} receive ${event}.`
}

/**
 * A button that opens a form changing the order in a modal: `onOpen` fills
 * the form from the order as it is (an earlier refusal is cleared), `onSave`
 * sends it and is handed `close` for when the change is taken; a refusal
 * shows above the save button, each problem the service names beside its field.
 */
export function ChangeModal({
  button,
  title,
  size,
  change,
  refusal,
  onOpen,
  onSave,
  saveLabel,
  children,
}: {
  button: string
  title: string
  size?: ModalProps['size']
  change: { reset: () => void; isPending: boolean }
  refusal: ReturnType<typeof readRefusal>
  onOpen: () => void
  onSave: (close: () => void) => void
  saveLabel: string
  children: ReactNode
}) {
  const [open, setOpen] = useState(false)
  const start = () => {
    onOpen()
    change.reset()
    setOpen(true)
  }
  const submit = (e: FormEvent) => {
    e.preventDefault()
    onSave(() => setOpen(false))
  }
  return (
    <>
      <Button size="xs" variant="default" onClick={start}>
        {button}
      </Button>
      <Modal
        opened={open}
        onClose={() => setOpen(false)}
        title={title}
        size={size}
        closeButtonProps={{ 'aria-label': 'Close' }}
      >
        <form onSubmit={submit}>
          <Stack>
            {children}
            <RefusalAlert refusal={refusal} title="The change was refused" />
            <Group justify="flex-end">
              <Button type="submit" loading={change.isPending}>
                {saveLabel}
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  )
}

/** An item's file controls: remove one (after asking), or add one from this computer. */
export function ItemFiles({ order, item, position, who }: ItemControlProps) {
  const { change, addFile } = useOrderEdits(who, order.id)
  const [removing, setRemoving] = useState<Item['files'][number] | null>(null)
  const [file, setFile] = useState<File | null>(null)
  const [role, setRole] = useState('')
  const [inputKey, setInputKey] = useState(0)
  const add = (e: FormEvent) => {
    e.preventDefault()
    if (!file) return
    addFile.mutate(
      { expected: order.updated_at, itemId: item.id, file, role },
      {
        onSuccess: () => {
          setFile(null)
          setRole('')
          setInputKey(inputKey + 1)
        },
      },
    )
  }
  return (
    <Stack gap="xs">
      {item.files.length > 0 && (
        <Group gap="xs">
          {item.files.map((f) => (
            <Button key={f.upload_id} size="xs" variant="default" onClick={() => setRemoving(f)}>
              Remove {f.name ?? 'file'}
            </Button>
          ))}
        </Group>
      )}
      <form onSubmit={add}>
        <Group align="flex-end">
          <label>
            <Text size="sm" fw={500}>
              File to add to item {position}
            </Text>
            <input key={inputKey} type="file" onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} />
          </label>
          <TextInput
            size="xs"
            label="Role (optional)"
            value={role}
            onChange={(e) => setRole(e.currentTarget.value)}
          />
          <Button type="submit" size="xs" disabled={!file} loading={addFile.isPending}>
            Add file to item {position}
          </Button>
        </Group>
      </form>
      <ErrorAlert error={addFile.error ?? change.error} title="The file change was refused" />
      <ConfirmModal
        opened={removing !== null}
        title={`Remove ${removing?.name ?? 'the file'}?`}
        onCancel={() => setRemoving(null)}
        confirmLabel="Remove file"
        busy={change.isPending}
        onConfirm={() =>
          change.mutate(
            {
              expected_updated_at: order.updated_at,
              items: [{ id: item.id, remove_files: [removing!.upload_id] }],
            },
            { onSettled: () => setRemoving(null) },
          )
        }
      >
        The item no longer refers to this file; production will not see it. The stored file is kept.{' '}
        {toldOf(order, who, 'order.updated')}
      </ConfirmModal>
    </Stack>
  )
}

export function CancelOrder({ order, who }: { order: DashboardOrder; who: Editor }) {
  const { cancel } = useOrderEdits(who, order.id)
  const [open, setOpen] = useState(false)
  return (
    <>
      <Button color="red.9" variant="outline" size="xs" onClick={() => setOpen(true)}>
        Cancel order
      </Button>
      <ErrorAlert error={cancel.error} title="The order was not cancelled" />
      <ConfirmModal
        opened={open}
        title={`Cancel order ${order.external_order_id}?`}
        onCancel={() => setOpen(false)}
        cancelLabel="Keep the order"
        confirmLabel="Cancel the order"
        busy={cancel.isPending}
        onConfirm={() =>
          cancel.mutate(
            { expected: order.updated_at, productionStatus: order.production_order?.status ?? 'pending' },
            { onSettled: () => setOpen(false) },
          )
        }
      >
        Production stops and the order and its unfinished items become cancelled.{' '}
        {toldOf(order, who, 'order.cancelled')}{' '}
        {who === 'member'
          ? 'You cannot undo this.'
          : 'Only an operator can reopen it, from the Cancelled view of the production board.'}
      </ConfirmModal>
    </>
  )
}

/** Why the page offers no changes, or what cancelling does not apply to. */
export function EditNotes({ order, who }: { order: DashboardOrder; who: Editor }) {
  const policy = editPolicy(order, who)
  if (!policy.reason && !policy.cancelNote) return null
  return (
    <Alert variant="default" color="yellow" title="What can change">
      <Stack gap={4}>
        {policy.reason && <Text size="sm">{policy.reason}</Text>}
        {policy.cancelNote && <Text size="sm">{policy.cancelNote}</Text>}
      </Stack>
    </Alert>
  )
}
