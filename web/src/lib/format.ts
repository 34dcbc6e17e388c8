/**
 * Times, money and counts as the reader's locale writes them. Every page
 * formats through these, so one order reads the same everywhere.
 */

/** An instant to the second with its zone ("Nov 29, 2026, 5:37:12 PM UTC"): where order matters. */
const exact = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'long' })
/** An instant spelled out ("Sunday, November 29, 2026 at 5:37:12 PM Coordinated Universal Time"). */
const full = new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeStyle: 'full' })
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' })
const grouped = new Intl.NumberFormat()

export const exactTime = (iso: string) => exact.format(new Date(iso))
export const fullTime = (iso: string) => full.format(new Date(iso))

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['second', 60],
  ['minute', 60],
  ['hour', 24],
  ['day', 30],
  ['month', 12],
  ['year', Number.POSITIVE_INFINITY],
]

/** How long ago (or from now) an instant is, in its largest whole unit: "3 minutes ago", "in 2 days". */
export function relativeTime(iso: string, now: number): string {
  let value = (new Date(iso).getTime() - now) / 1000
  // A few seconds either way is "now": clocks and the ticker are not that precise.
  if (Math.abs(value) < 10) return relative.format(0, 'second')
  for (const [unit, size] of UNITS) {
    if (Math.abs(value) < size) return relative.format(Math.trunc(value), unit)
    value /= size
  }
  return relative.format(Math.trunc(value), 'year')
}

/** A count or amount with the locale's grouping: "12,345". */
export const formatNumber = (value: number) => grouped.format(value)

const moneyFormats = new Map<string, Intl.NumberFormat>()

/**
 * An amount in its currency, as "1,234.50 EUR" in every locale's digits: the
 * currency's own decimals (two for EUR, none for JPY), the code after the
 * number so that columns of several currencies line up. Without a currency,
 * a plain grouped number.
 */
export function formatMoney(amount: number, currency: string | null | undefined): string {
  if (!currency) return formatNumber(amount)
  let format = moneyFormats.get(currency)
  if (!format) {
    try {
      format = new Intl.NumberFormat(undefined, { style: 'currency', currency, currencyDisplay: 'code' })
    } catch {
      // Not a well-formed currency code: the number and the code as stored.
      return `${formatNumber(amount)} ${currency}`
    }
    moneyFormats.set(currency, format)
  }
  const number = format
    .formatToParts(amount)
    // The code and the space beside it go; the sign stays with the digits.
    .filter((part) => part.type !== 'currency' && !(part.type === 'literal' && /^\s+$/.test(part.value)))
    .map((part) => part.value)
    .join('')
  return `${number} ${currency}`
}
