import {
  Alert,
  Anchor,
  Button,
  Card,
  Group,
  NumberInput,
  Select,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core'
import { type FormEvent, useState } from 'react'
import { Link } from 'react-router'
import { RefusalAlert } from '../../../../components/error-alert.tsx'
import { Page } from '../../../../components/page.tsx'
import { cleared, readRefusal } from '../../../../lib/field-errors.ts'
import { ORDER_LIMITS } from '../../../../lib/limits.ts'
import { useOrganizations } from '../../../organizations/console/api/organizations.ts'
import { useCreateShopOrder } from '../api/shop-orders.ts'
import { ItemsFields } from '../components/shop-order-items.tsx'
import { checkShopOrder, emptyItem, type ItemDraft, labelOf } from '../lib/shop-order-form.ts'

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
    const found = checkShopOrder({ externalId, customerName, customerEmail, currency, total, items })
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
