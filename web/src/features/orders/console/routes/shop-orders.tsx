import {
  ActionIcon,
  Alert,
  Anchor,
  Button,
  Card,
  Fieldset,
  Group,
  NumberInput,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
  VisuallyHidden,
} from '@mantine/core'
import { type FormEvent, useState } from 'react'
import { Link } from 'react-router'
import { useStacked } from '../../../../components/data-table.tsx'
import { RefusalAlert } from '../../../../components/error-alert.tsx'
import { Page } from '../../../../components/page.tsx'
import {
  checkLength,
  checkWholeNumber,
  cleared,
  problems,
  readRefusal,
} from '../../../../lib/field-errors.ts'
import { ORDER_LIMITS } from '../../../../lib/limits.ts'
import { useOrganizations } from '../../../organizations/console/api/organizations.ts'
import { useCreateShopOrder } from '../api/shop-orders.ts'

interface ItemDraft {
  sku: string
  name: string
  quantity: number | string
  price: number | string
}
const emptyItem = (): ItemDraft => ({ sku: '', name: '', quantity: 1, price: '' })

const ITEM_WORDS: Record<string, string> = {
  sku: 'SKU',
  name: 'name',
  quantity: 'quantity',
  price: 'unit price',
}
const FIELD_LABELS: Record<string, string> = {
  external_order_id: 'Order number in the shop',
  'customer.name': 'Customer name',
  'customer.email': 'Customer email',
  currency: 'Currency',
  total_amount: 'Total amount',
}

/** What the service may name in a refusal, in this form's words ("items.0.quantity" is "Item 1 quantity"). */
const labelOf = (field: string) => {
  const item = /^items\.(\d+)\.(sku|name|quantity|price)$/.exec(field)
  return item ? `Item ${Number(item[1]) + 1} ${ITEM_WORDS[item[2]!]}` : FIELD_LABELS[field]
}

/** The form's own checks, with the service's limits: the messages by the API's field path, or none. */
function check(v: {
  externalId: string
  customerName: string
  customerEmail: string
  currency: string
  total: number | string
  items: ItemDraft[]
}) {
  const checks: Record<string, string | undefined> = {
    external_order_id: checkLength('Order number in the shop', v.externalId.trim(), { min: 1, max: 255 }),
    'customer.name': checkLength('Customer name', v.customerName.trim(), ORDER_LIMITS.customerName),
    'customer.email': checkLength('Customer email', v.customerEmail.trim(), ORDER_LIMITS.customerEmail),
    currency: /^[A-Z]{3}$/.test(v.currency.trim().toUpperCase())
      ? undefined
      : 'Currency must be three letters, such as EUR',
    total_amount: v.total === '' ? 'Total amount is required' : undefined,
  }
  v.items.forEach((item, n) => {
    const name = `Item ${n + 1}`
    checks[`items.${n}.sku`] = checkLength(`${name} SKU`, item.sku.trim(), { max: 255 })
    checks[`items.${n}.name`] = checkLength(`${name} name`, item.name.trim(), { min: 1, max: 255 })
    checks[`items.${n}.quantity`] = checkWholeNumber(`${name} quantity`, item.quantity, ORDER_LIMITS.quantity)
  })
  return problems(checks)
}

export function ShopOrdersRoute() {
  const organizations = useOrganizations()
  const create = useCreateShopOrder()
  const [orgId, setOrgId] = useState<string | null>(null)
  const [externalId, setExternalId] = useState('')
  const [customerName, setCustomerName] = useState('')
  const [customerEmail, setCustomerEmail] = useState('')
  const [currency, setCurrency] = useState('EUR')
  const [total, setTotal] = useState<number | string>('')
  const [items, setItems] = useState<ItemDraft[]>([emptyItem()])

  // The form's own checks, shown until their field changes; then the service's refusals, beside their fields.
  const [checked, setChecked] = useState<Record<string, string>>({})
  const refusal = readRefusal(create.error, labelOf, {
    order_already_exists_with_different_content: 'external_order_id',
  })
  const message = (field: string) => checked[field] ?? refusal?.fields[field]
  const changed = (field: string) => setChecked((all) => cleared(all, field))

  const setItem = (n: number, change: Partial<ItemDraft>) => {
    for (const key of Object.keys(change)) changed(`items.${n}.${key}`)
    setItems((all) => all.map((item, i) => (i === n ? { ...item, ...change } : item)))
  }

  function submit(event: FormEvent) {
    event.preventDefault()
    const found = check({ externalId, customerName, customerEmail, currency, total, items })
    const missing = orgId ? undefined : { organization: 'Choose the organization' }
    setChecked({ ...found, ...missing })
    if (found || !orgId) return
    create.mutate({
      orgId,
      body: {
        external_order_id: externalId.trim(),
        customer: { name: customerName.trim(), email: customerEmail.trim() },
        currency: currency.trim().toUpperCase(),
        total_amount: Number(total),
        items: items.map((item) => ({
          ...(item.sku.trim() ? { sku: item.sku.trim() } : {}),
          name: item.name.trim(),
          quantity: Number(item.quantity),
          ...(item.price === '' ? {} : { price: Number(item.price) }),
        })),
      },
    })
  }

  const result = create.data
  const wide = { base: '100%', sm: 'auto' }
  return (
    <Page
      title="Shop orders"
      lead="Orders that came through a shop connection, entered by the operator. They are live orders and go into production and statistics."
    >
      <Alert variant="default" color="yellow" title="Shop orders produce no events">
        Webhooks tell an organization's own system about the orders it sent through the API. A shop order
        comes from a shop connection instead, so no webhook is sent for it: not when it is created, and not
        when its production changes. The organization's system does not hear of it.
      </Alert>
      <Card withBorder component="section" aria-labelledby="shop-order-form">
        <Title order={2} size="h4" id="shop-order-form" mb="sm">
          New shop order
        </Title>
        <form onSubmit={submit}>
          <Stack>
            <Group align="flex-end" wrap="wrap">
              <Select
                label="Organization"
                w={wide}
                required
                searchable
                data={organizations.data?.map((o) => ({ value: o.id, label: o.name })) ?? []}
                value={orgId}
                error={message('organization')}
                onChange={(v) => {
                  changed('organization')
                  setOrgId(v)
                }}
              />
              <TextInput
                label="Order number in the shop"
                description="The shop's own number for the order, new for the organization"
                w={wide}
                required
                maxLength={255}
                value={externalId}
                error={message('external_order_id')}
                onChange={(e) => {
                  changed('external_order_id')
                  setExternalId(e.currentTarget.value)
                }}
              />
            </Group>
            <Group align="flex-end" wrap="wrap">
              <TextInput
                label="Customer name"
                w={wide}
                required
                maxLength={ORDER_LIMITS.customerName.max}
                value={customerName}
                error={message('customer.name')}
                onChange={(e) => {
                  changed('customer.name')
                  setCustomerName(e.currentTarget.value)
                }}
              />
              <TextInput
                label="Customer email"
                w={wide}
                type="email"
                required
                maxLength={ORDER_LIMITS.customerEmail.max}
                value={customerEmail}
                error={message('customer.email')}
                onChange={(e) => {
                  changed('customer.email')
                  setCustomerEmail(e.currentTarget.value)
                }}
              />
              <TextInput
                label="Currency"
                required
                maxLength={3}
                w={100}
                value={currency}
                error={message('currency')}
                onChange={(e) => {
                  changed('currency')
                  setCurrency(e.currentTarget.value)
                }}
              />
              <NumberInput
                label="Total amount"
                w={wide}
                required
                min={0}
                decimalScale={2}
                value={total}
                error={message('total_amount')}
                onChange={(v) => {
                  changed('total_amount')
                  setTotal(v)
                }}
              />
            </Group>
            <ItemsFields
              items={items}
              setItem={setItem}
              setItems={(change) => {
                // Items added or removed: their messages no longer sit at the same positions.
                setChecked((all) =>
                  Object.fromEntries(Object.entries(all).filter(([k]) => !k.startsWith('items.'))),
                )
                setItems(change)
              }}
              message={message}
            />
            <Group>
              <Button variant="default" onClick={() => setItems((all) => [...all, emptyItem()])}>
                Add an item
              </Button>
              <Button type="submit" loading={create.isPending}>
                Create shop order
              </Button>
            </Group>
          </Stack>
        </form>
        <RefusalAlert refusal={refusal} title="No shop order was created" />
      </Card>
      {result && (
        <Alert
          variant="default"
          color="green"
          role="status"
          title={result.created ? 'Shop order created' : 'Already created'}
        >
          <Text size="sm">
            {result.created
              ? `Shop order ${result.order.external_order_id} is live and pending production.`
              : `Shop order ${result.order.external_order_id} was created before with the same content: nothing new.`}{' '}
            Events recorded: none (shop orders produce no events).
          </Text>
          <Anchor
            component={Link}
            size="sm"
            to={`/operator/production?organization_id=${result.order.organization_id}`}
          >
            See it on the production board
          </Anchor>{' '}
          <Anchor component={Link} size="sm" to={`/operator/orders/${result.order.id}`}>
            Open the order
          </Anchor>
        </Alert>
      )}
    </Page>
  )
}

/**
 * The order's items: a table of inputs on a wide screen; on a phone a group
 * per item with its fields one under the other, named as in the table.
 */
function ItemsFields({
  items,
  setItem,
  setItems,
  message,
}: {
  items: ItemDraft[]
  setItem: (n: number, change: Partial<ItemDraft>) => void
  setItems: (change: (all: ItemDraft[]) => ItemDraft[]) => void
  /** The message of a field, by the API's path (`items.0.quantity`), if any. */
  message: (field: string) => string | undefined
}) {
  const stacked = useStacked()
  const fields = (item: ItemDraft, n: number) => [
    <TextInput
      key="sku"
      label={stacked ? 'SKU' : undefined}
      aria-label={`Item ${n + 1} SKU`}
      maxLength={255}
      value={item.sku}
      error={message(`items.${n}.sku`)}
      onChange={(e) => setItem(n, { sku: e.currentTarget.value })}
    />,
    <TextInput
      key="name"
      label={stacked ? 'Name' : undefined}
      aria-label={`Item ${n + 1} name`}
      required
      maxLength={255}
      value={item.name}
      error={message(`items.${n}.name`)}
      onChange={(e) => setItem(n, { name: e.currentTarget.value })}
    />,
    <NumberInput
      key="quantity"
      label={stacked ? 'Quantity' : undefined}
      aria-label={`Item ${n + 1} quantity`}
      required
      min={ORDER_LIMITS.quantity.min}
      max={ORDER_LIMITS.quantity.max}
      allowDecimal={false}
      error={message(`items.${n}.quantity`)}
      w={stacked ? undefined : 100}
      value={item.quantity}
      onChange={(v) => setItem(n, { quantity: v })}
    />,
    <NumberInput
      key="price"
      label={stacked ? 'Unit price' : undefined}
      aria-label={`Item ${n + 1} unit price`}
      min={0}
      decimalScale={2}
      error={message(`items.${n}.price`)}
      w={stacked ? undefined : 120}
      value={item.price}
      onChange={(v) => setItem(n, { price: v })}
    />,
  ]
  const remove = (n: number) =>
    items.length > 1 && (
      <ActionIcon
        variant="default"
        aria-label={`Remove item ${n + 1}`}
        onClick={() => setItems((all) => all.filter((_, i) => i !== n))}
      >
        ×
      </ActionIcon>
    )
  if (stacked) {
    return (
      <Stack gap="sm">
        {items.map((item, n) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: items are positions of the form
          <Fieldset key={n} legend={`Item ${n + 1}`} p="sm">
            <Stack gap="xs">
              {fields(item, n)}
              {remove(n) && <Group justify="flex-end">{remove(n)}</Group>}
            </Stack>
          </Fieldset>
        ))}
      </Stack>
    )
  }
  return (
    <Table aria-label="Items of the shop order">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>SKU</Table.Th>
          <Table.Th>Name</Table.Th>
          <Table.Th>Quantity</Table.Th>
          <Table.Th>Unit price</Table.Th>
          <Table.Th>
            <VisuallyHidden>Remove</VisuallyHidden>
          </Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {items.map((item, n) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows are positions of the form
          <Table.Tr key={n}>
            {fields(item, n).map((field) => (
              <Table.Td key={field.key}>{field}</Table.Td>
            ))}
            <Table.Td>{remove(n)}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  )
}
