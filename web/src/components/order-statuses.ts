/** An order's statuses and how every page names them, in the order lists, filters and charts show them. */
export const ORDER_STATUSES = [
  ['pending', 'Pending'],
  ['in_production', 'In production'],
  ['completed', 'Completed'],
  ['failed', 'Failed'],
  ['cancelled', 'Cancelled'],
] as const

export type OrderStatus = (typeof ORDER_STATUSES)[number][0]
