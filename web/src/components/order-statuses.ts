/** An order's statuses and how every page names them, in the order lists, filters and charts show them. */
export const ORDER_STATUSES = [
  ['pending', 'Pending'],
  ['in_production', 'In production'],
  ['completed', 'Completed'],
  ['failed', 'Failed'],
  ['cancelled', 'Cancelled'],
] as const

export type OrderStatus = (typeof ORDER_STATUSES)[number][0]

/** An order's status in words (its code where it has none). */
export const orderStatusLabel = (s: string) => ORDER_STATUSES.find(([k]) => k === s)?.[1] ?? s

/** A production order's statuses in words, as the board and the job sheet name them. */
export const PRODUCTION_STATUS_WORDS: Record<string, string> = {
  pending: 'Pending',
  in_progress: 'In production',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
}
