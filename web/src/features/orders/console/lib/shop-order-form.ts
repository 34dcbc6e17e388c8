import { checkLength, checkWholeNumber, problems } from '../../../../lib/field-errors.ts'
import { ORDER_LIMITS } from '../../../../lib/limits.ts'

/** The console's shop order form: an item as typed, the fields' words, and its own checks. */

export interface ItemDraft {
  sku: string
  name: string
  quantity: number | string
  price: number | string
}
export const emptyItem = (): ItemDraft => ({ sku: '', name: '', quantity: 1, price: '' })

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
export const labelOf = (field: string) => {
  const item = /^items\.(\d+)\.(sku|name|quantity|price)$/.exec(field)
  return item ? `Item ${Number(item[1]) + 1} ${ITEM_WORDS[item[2]!]}` : FIELD_LABELS[field]
}

/** The form's own checks, with the service's limits: the messages by the API's field path, or none. */
export function checkShopOrder(v: {
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
