import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { itemsNet, quantitiesChanged } from '../../web/src/features/orders/lib/items-net.ts'

/** What the order page's Total says beside the paid total (web/src/features/orders/lib/items-net.ts). */
describe("the order page's items net sum", () => {
  test('a quantity change in the history counts; personalization, files, the customer and a cancel do not', () => {
    assert.equal(quantitiesChanged([]), false)
    assert.equal(
      quantitiesChanged([
        {
          action: 'order.changed',
          changed: ['items[0].personalization', 'items[1].files', 'customer.email'],
        },
        { action: 'order.cancelled', changed: ['status'] },
        { action: 'order.released', changed: ['status'] },
      ]),
      false,
    )
    assert.equal(
      quantitiesChanged([
        { action: 'order.changed', changed: ['customer.name'] },
        { action: 'order.changed', changed: ['items[3].personalization', 'items[3].quantity'] },
      ]),
      true,
    )
  })

  test('Σ quantity × unit price in exact decimals; items without a price are counted apart', () => {
    assert.deepEqual(itemsNet([{ quantity: 5, price: 12.5 }]), { amount: '62.5', unpriced: 0 })
    // 3 × 0.1 + 0.2 is 0.5 exactly, not 0.5000000000000001.
    assert.deepEqual(
      itemsNet([
        { quantity: 3, price: 0.1 },
        { quantity: 1, price: 0.2 },
        { quantity: 2, price: null },
      ]),
      { amount: '0.5', unpriced: 1 },
    )
    assert.deepEqual(itemsNet([{ quantity: 7, price: 19.99 }]), { amount: '139.93', unpriced: 0 })
    assert.deepEqual(itemsNet([]), { amount: '0', unpriced: 0 })
    assert.deepEqual(itemsNet([{ quantity: 2, price: 1e-7 }]), { amount: '0.0000002', unpriced: 0 })
    assert.deepEqual(itemsNet([{ quantity: 3, price: 1e21 }]), {
      amount: '3000000000000000000000',
      unpriced: 0,
    })
    assert.deepEqual(itemsNet([{ quantity: 4, price: 0.25 }]), { amount: '1', unpriced: 0 })
  })
})
