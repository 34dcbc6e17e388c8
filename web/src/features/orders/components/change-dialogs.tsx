/** The dialogs that change an accepted order's customer and its items (ChangeModal's forms). */
import { Button, Group, NumberInput, Text, TextInput } from '@mantine/core'
import { useState } from 'react'
import type { DashboardOrder } from '../../../lib/api.ts'
import { checkLength, checkWholeNumber } from '../../../lib/field-errors.ts'
import { ORDER_LIMITS } from '../../../lib/limits.ts'
import { useFieldMessages } from '../../../lib/use-field-messages.ts'
import { type Editor, useOrderEdits } from '../api/order-edit.ts'
import { ChangeModal, type ItemControlProps } from './order-edit.tsx'

type Value = string | number | boolean | null

/** A personalization value as typed, in the type the field had (numbers stay numbers). */
function typed(text: string, before: Value | undefined): Value {
  if (typeof before === 'number' && text.trim() !== '' && Number.isFinite(Number(text))) return Number(text)
  if (typeof before === 'boolean' && (text === 'true' || text === 'false')) return text === 'true'
  if (before === null && text === '') return null
  return text
}
const shown = (v: Value) => (v === null ? '' : String(v))

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
