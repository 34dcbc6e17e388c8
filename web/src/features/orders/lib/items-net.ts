import Decimal from 'decimal.js-light'

/**
 * What the order's Total says beside it: the total is what the customer paid
 * (as the order arrived; never recomputed), so once an item's quantity has
 * changed since, the page says so and shows the items' net sum now.
 */

/** A change of the order's history as the order page has it (GET .../history). */
interface Change {
  action: string
  changed: string[]
}

/**
 * Whether a quantity changed after the order arrived: the only change of an
 * item that moves its sum (prices are not changed; personalization and files
 * do not count).
 */
export function quantitiesChanged(history: readonly Change[]): boolean {
  return history.some(
    (entry) =>
      entry.action === 'order.changed' && entry.changed.some((path) => /^items\[\d+\]\.quantity$/.test(path)),
  )
}

/**
 * Σ quantity × unit price of the items, in exact decimal arithmetic, as a
 * decimal string ("62.5"); `unpriced` counts the items without a price (left
 * out of the sum).
 */
export function itemsNet(items: readonly { quantity: number; price: number | null }[]): {
  amount: string
  unpriced: number
} {
  let sum = new Decimal(0)
  let unpriced = 0
  for (const item of items) {
    if (item.price === null) unpriced += 1
    // String(): the shortest decimal that reads back as the number, i.e. the price as sent.
    else sum = sum.plus(new Decimal(String(item.price)).times(item.quantity))
  }
  return { amount: sum.toString(), unpriced }
}
