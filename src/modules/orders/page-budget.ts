/**
 * A page of the order lists ends early, with a next_cursor, once the orders on
 * it would pass this many bytes of items: large orders page one or a few at a
 * time instead of building a response that exhausts memory. A page always
 * holds at least one order, however large.
 */
export const PAGE_BUDGET_BYTES = 8 * 1024 * 1024

/** What an order's response carries besides its items (ids, customer, timestamps). */
export const ORDER_OVERHEAD_BYTES = 512

/** The leading rows that fit the budget; never fewer than one. */
export function withinBudget<T extends { content_bytes: number }>(
  rows: T[],
  budget: number = PAGE_BUDGET_BYTES,
): T[] {
  let total = 0
  for (let n = 0; n < rows.length; n++) {
    total += rows[n]!.content_bytes + ORDER_OVERHEAD_BYTES
    if (total > budget && n > 0) return rows.slice(0, n)
  }
  return rows
}
