import {
  ActionIcon,
  Fieldset,
  Group,
  NumberInput,
  Stack,
  Table,
  TextInput,
  VisuallyHidden,
} from '@mantine/core'
import { useStacked } from '../../../../components/data-table.tsx'
import { ORDER_LIMITS } from '../../../../lib/limits.ts'
import type { ItemDraft } from '../lib/shop-order-form.ts'

/**
 * The order's items: a table of inputs on a wide screen; on a phone a group
 * per item with its fields one under the other, named as in the table.
 */
export function ItemsFields({
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
