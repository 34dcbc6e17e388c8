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
import { ErrorAlert } from '../../../../components/error-alert.tsx'
import { Page } from '../../../../components/page.tsx'
import { useOrganizations } from '../../../organizations/console/api/organizations.ts'
import { useCreateShopOrder } from '../api/shop-orders.ts'

interface ItemDraft {
  sku: string
  name: string
  quantity: number | string
  price: number | string
}
const emptyItem = (): ItemDraft => ({ sku: '', name: '', quantity: 1, price: '' })

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

  const setItem = (n: number, change: Partial<ItemDraft>) =>
    setItems((all) => all.map((item, i) => (i === n ? { ...item, ...change } : item)))

  function submit(event: FormEvent) {
    event.preventDefault()
    if (!orgId) return
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
                onChange={setOrgId}
              />
              <TextInput
                label="Order number in the shop"
                description="The shop's own number for the order, new for the organization"
                w={wide}
                required
                maxLength={255}
                value={externalId}
                onChange={(e) => setExternalId(e.currentTarget.value)}
              />
            </Group>
            <Group align="flex-end" wrap="wrap">
              <TextInput
                label="Customer name"
                w={wide}
                required
                value={customerName}
                onChange={(e) => setCustomerName(e.currentTarget.value)}
              />
              <TextInput
                label="Customer email"
                w={wide}
                type="email"
                required
                value={customerEmail}
                onChange={(e) => setCustomerEmail(e.currentTarget.value)}
              />
              <TextInput
                label="Currency"
                required
                maxLength={3}
                w={100}
                value={currency}
                onChange={(e) => setCurrency(e.currentTarget.value)}
              />
              <NumberInput
                label="Total amount"
                w={wide}
                required
                min={0}
                decimalScale={2}
                value={total}
                onChange={setTotal}
              />
            </Group>
            <ItemsFields items={items} setItem={setItem} setItems={setItems} />
            <Group>
              <Button variant="default" onClick={() => setItems((all) => [...all, emptyItem()])}>
                Add an item
              </Button>
              <Button type="submit" loading={create.isPending} disabled={!orgId}>
                Create shop order
              </Button>
            </Group>
          </Stack>
        </form>
        <ErrorAlert error={create.error} />
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
}: {
  items: ItemDraft[]
  setItem: (n: number, change: Partial<ItemDraft>) => void
  setItems: (change: (all: ItemDraft[]) => ItemDraft[]) => void
}) {
  const stacked = useStacked()
  const fields = (item: ItemDraft, n: number) => [
    <TextInput
      key="sku"
      label={stacked ? 'SKU' : undefined}
      aria-label={`Item ${n + 1} SKU`}
      value={item.sku}
      onChange={(e) => setItem(n, { sku: e.currentTarget.value })}
    />,
    <TextInput
      key="name"
      label={stacked ? 'Name' : undefined}
      aria-label={`Item ${n + 1} name`}
      required
      value={item.name}
      onChange={(e) => setItem(n, { name: e.currentTarget.value })}
    />,
    <NumberInput
      key="quantity"
      label={stacked ? 'Quantity' : undefined}
      aria-label={`Item ${n + 1} quantity`}
      required
      min={1}
      allowDecimal={false}
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
