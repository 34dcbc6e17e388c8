/** Pieces of order bodies for the validation tests. */
export type Body = Record<string, unknown>

/** A string of n characters. */
export const x = (n: number, ch = 'x') => ch.repeat(n)
/** A valid item with some fields replaced. */
export const item = (overrides: Body = {}): Body => ({ sku: 'SKU-1', name: 'Mug', quantity: 1, ...overrides })
/** A personalization object of n keys. */
export const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, `v${i}`]))
