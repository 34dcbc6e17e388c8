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

/** A number as an exact decimal: digits and how many of them are decimals (its shortest decimal form). */
function exact(value: number): { digits: bigint; scale: number } {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i.exec(String(value))
  if (!m) throw new RangeError(`not a finite number: ${value}`)
  const fraction = m[3] ?? ''
  const scale = fraction.length - Number(m[4] ?? 0)
  const digits = BigInt(`${m[1]}${m[2]}${fraction}`)
  return scale >= 0 ? { digits, scale } : { digits: digits * 10n ** BigInt(-scale), scale: 0 }
}

/** An exact decimal as text, without trailing zeros ("62.5"). */
function text({ digits, scale }: { digits: bigint; scale: number }): string {
  const sign = digits < 0n ? '-' : ''
  const all = (digits < 0n ? -digits : digits).toString().padStart(scale + 1, '0')
  const whole = all.slice(0, all.length - scale)
  const fraction = all.slice(all.length - scale).replace(/0+$/, '')
  return `${sign}${whole}${fraction ? `.${fraction}` : ''}`
}

/**
 * Σ quantity × unit price of the items, in exact decimal arithmetic (the
 * prices' shortest decimal forms, as sent, summed as integers: no floating
 * point), as a decimal string ("62.5"); `unpriced` counts the items without
 * a price (left out of the sum).
 */
export function itemsNet(items: readonly { quantity: number; price: number | null }[]): {
  amount: string
  unpriced: number
} {
  let sum = { digits: 0n, scale: 0 }
  let unpriced = 0
  for (const item of items) {
    if (item.price === null) {
      unpriced += 1
      continue
    }
    const price = exact(item.price)
    const scale = Math.max(sum.scale, price.scale)
    const line = price.digits * BigInt(item.quantity) * 10n ** BigInt(scale - price.scale)
    sum = { digits: sum.digits * 10n ** BigInt(scale - sum.scale) + line, scale }
  }
  return { amount: text(sum), unpriced }
}
