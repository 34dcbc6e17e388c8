import {
  Alert,
  Button,
  Group,
  Modal,
  type ModalProps,
  NumberInput,
  Stack,
  Text,
  TextInput,
} from '@mantine/core'
import { type FormEvent, type ReactNode, useState } from 'react'
import { ConfirmModal } from '../../../components/confirm-modal.tsx'
import { ErrorAlert, RefusalAlert } from '../../../components/error-alert.tsx'
import type { DashboardOrder } from '../../../lib/api.ts'
import {
  checkLength,
  checkWholeNumber,
  cleared,
  type FieldLabels,
  problems,
  readRefusal,
} from '../../../lib/field-errors.ts'
import { ORDER_LIMITS } from '../../../lib/limits.ts'
import { type Editor, useOrderEdits } from '../api/order-edit.ts'

type Item = DashboardOrder['items'][number]
type Value = string | number | boolean | null
/** What an item's controls (ChangeItem, ItemFiles) take: the order, the item, its place (from 1) and who edits. */
type ItemControlProps = { order: DashboardOrder; item: Item; position: number; who: Editor }

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

/** A personalization value as typed, in the type the field had (numbers stay numbers). */
function typed(text: string, before: Value | undefined): Value {
  if (typeof before === 'number' && text.trim() !== '' && Number.isFinite(Number(text))) return Number(text)
  if (typeof before === 'boolean' && (text === 'true' || text === 'false')) return text === 'true'
  if (before === null && text === '') return null
  return text
}
const shown = (v: Value) => (v === null ? '' : String(v))

/**
 * A form's messages beside its fields: its own checks (`checked`, set before
 * sending, a field's cleared when it changes) first, then the service's
 * refusal read with the form's labels.
 */
function useFieldMessages(error: unknown, labels: FieldLabels) {
  const [checked, setChecked] = useState<Record<string, string>>({})
  const refusal = readRefusal(error, labels)
  return {
    refusal,
    message: (field: string) => checked[field] ?? refusal?.fields[field],
    /** Runs the form's checks: true when they pass and the form may be sent. */
    check: (found: Record<string, string | undefined>) => {
      const messages = problems(found)
      setChecked(messages ?? {})
      return messages === undefined
    },
    changed: (field: string) => setChecked((c) => cleared(c, field)),
    clear: () => setChecked({}),
  }
}

/**
 * A button that opens a form changing the order in a modal: `onOpen` fills
 * the form from the order as it is (an earlier refusal is cleared), `onSave`
 * sends it and is handed `close` for when the change is taken; a refusal
 * shows above the save button, each problem the service names beside its field.
 */
function ChangeModal({
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

/** What the service may name in a refusal of the customer, in this form's words. */
const CUSTOMER_LABELS = { 'customer.name': 'Name', 'customer.email': 'Email', 'customer.phone': 'Phone' }

export function ChangeCustomer({ order, who }: { order: DashboardOrder; who: Editor }) {
  const { change } = useOrderEdits(who, order.id)
  const [form, setForm] = useState({ name: '', email: '', phone: '' })
  const fields = useFieldMessages(change.error, CUSTOMER_LABELS)
  const start = () => {
    const c = order.customer
    setForm({ name: c.name, email: c.email ?? '', phone: c.phone ?? '' })
    fields.clear()
  }
  const edit = (field: keyof typeof form, value: string) => {
    setForm({ ...form, [field]: value })
    fields.changed(`customer.${field}`)
  }
  const save = (close: () => void) => {
    const passes = fields.check({
      'customer.name': checkLength('Name', form.name, ORDER_LIMITS.customerName),
      'customer.email': checkLength('Email', form.email, ORDER_LIMITS.customerEmail),
      'customer.phone': checkLength('Phone', form.phone, ORDER_LIMITS.customerPhone),
    })
    if (!passes) return
    change.mutate(
      {
        expected_updated_at: order.updated_at,
        customer: { name: form.name, email: form.email || null, phone: form.phone || null },
      },
      { onSuccess: close },
    )
  }
  return (
    <ChangeModal
      button="Change customer"
      title="Change the customer"
      change={change}
      refusal={fields.refusal}
      onOpen={start}
      onSave={save}
      saveLabel="Save customer"
    >
      <TextInput
        label="Name"
        required
        value={form.name}
        error={fields.message('customer.name')}
        onChange={(e) => edit('name', e.currentTarget.value)}
      />
      <TextInput
        label="Email"
        value={form.email}
        error={fields.message('customer.email')}
        onChange={(e) => edit('email', e.currentTarget.value)}
      />
      <TextInput
        label="Phone"
        value={form.phone}
        error={fields.message('customer.phone')}
        onChange={(e) => edit('phone', e.currentTarget.value)}
      />
    </ChangeModal>
  )
}

export function ChangeItem({ order, item, position, who }: ItemControlProps) {
  const { change } = useOrderEdits(who, order.id)
  const [quantity, setQuantity] = useState<string | number>(item.quantity)
  const [fields, setFields] = useState<{ key: string; value: string }[]>([])
  // The service names this item by its place in the order: items.<place from 0>.…
  const path = `items.${position - 1}`
  const messages = useFieldMessages(change.error, (field) => {
    if (field === `${path}.quantity`) return 'Quantity'
    if (field === `${path}.personalization`) return 'Personalization'
    const key = field.startsWith(`${path}.personalization.`) && field.slice(path.length + 17)
    return key ? `The value of “${key}”` : undefined
  })
  const start = () => {
    setQuantity(item.quantity)
    setFields(
      Object.entries(item.personalization).map(([key, value]) => ({ key, value: shown(value as Value) })),
    )
    messages.clear()
  }
  const set = (n: number, patch: Partial<{ key: string; value: string }>) => {
    setFields(fields.map((f, i) => (i === n ? { ...f, ...patch } : f)))
    messages.changed(patch.key === undefined ? valuePath(fields[n]!.key) : `field-${n}-name`)
  }
  const valuePath = (key: string) => `${path}.personalization.${key}`
  const save = (close: () => void) => {
    const names = fields.map((f) => f.key)
    const passes = messages.check({
      [`${path}.quantity`]: checkWholeNumber('Quantity', quantity, ORDER_LIMITS.quantity),
      [`${path}.personalization`]:
        fields.length > ORDER_LIMITS.personalizationFields
          ? `Personalization must have at most ${ORDER_LIMITS.personalizationFields} fields`
          : undefined,
      ...Object.fromEntries(
        fields.flatMap((f, n) => [
          [
            `field-${n}-name`,
            checkLength(`Field ${n + 1} name`, f.key, ORDER_LIMITS.personalizationKey) ??
              (names.indexOf(f.key) < n
                ? `Field ${n + 1} has the same name as field ${names.indexOf(f.key) + 1}`
                : undefined),
          ],
          [
            valuePath(f.key),
            checkLength(`The value of “${f.key}”`, f.value, ORDER_LIMITS.personalizationValue),
          ],
        ]),
      ),
    })
    if (!passes) return
    const before = item.personalization as Record<string, Value>
    const personalization = Object.fromEntries(fields.map((f) => [f.key, typed(f.value, before[f.key])]))
    change.mutate(
      {
        expected_updated_at: order.updated_at,
        items: [{ id: item.id, quantity: Number(quantity), personalization }],
      },
      { onSuccess: close },
    )
  }
  return (
    <ChangeModal
      button={`Change item ${position}`}
      title={`Change item ${position}: ${item.name}`}
      size="lg"
      change={change}
      refusal={messages.refusal}
      onOpen={start}
      onSave={save}
      saveLabel={`Save item ${position}`}
    >
      <NumberInput
        label="Quantity"
        description={`${ORDER_LIMITS.quantity.min} to ${ORDER_LIMITS.quantity.max.toLocaleString('en-US')}`}
        value={quantity}
        onChange={(value) => {
          setQuantity(value)
          messages.changed(`${path}.quantity`)
        }}
        allowDecimal={false}
        error={messages.message(`${path}.quantity`)}
      />
      <Text fw={600} size="sm" id={`${path}-personalization`}>
        Personalization
      </Text>
      {messages.message(`${path}.personalization`) && (
        <Text size="sm" c="var(--mantine-color-error)">
          {messages.message(`${path}.personalization`)}
        </Text>
      )}
      {fields.map((f, n) => (
        // On a phone the name and the value share a line and the button goes under them, whole.
        // biome-ignore lint/suspicious/noArrayIndexKey: rows are edited in place; a key may be renamed.
        <Group key={n} align="flex-start" wrap="wrap" gap="xs">
          <TextInput
            label={`Field ${n + 1} name`}
            value={f.key}
            onChange={(e) => set(n, { key: e.currentTarget.value })}
            error={messages.message(`field-${n}-name`)}
            style={{ flex: '1 1 8rem' }}
          />
          <TextInput
            label={`Field ${n + 1} value`}
            value={f.value}
            onChange={(e) => set(n, { value: e.currentTarget.value })}
            error={messages.message(valuePath(f.key))}
            style={{ flex: '2 1 10rem' }}
          />
          <Button
            variant="default"
            mt={{ base: 0, xs: 25 }}
            style={{ flexShrink: 0 }}
            onClick={() => setFields(fields.filter((_, i) => i !== n))}
          >
            Remove field {n + 1}
          </Button>
        </Group>
      ))}
      <Group>
        <Button variant="default" size="xs" onClick={() => setFields([...fields, { key: '', value: '' }])}>
          Add a field
        </Button>
      </Group>
    </ChangeModal>
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
