import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { sql } from 'kysely'
import { orderBody, useTestApp } from '../helpers/app.ts'
import { memberOf } from '../helpers/dashboard.ts'
import { createOrder } from '../helpers/order-files.ts'

/**
 * The examples of docs/automation.md as a reader would copy them: each is
 * accepted by the dashboard API as written, and the closing example does
 * what the page says (held by the first rule, tagged, rush).
 */
const t = useTestApp()
const examples = [...readFileSync('docs/automation.md', 'utf8').matchAll(/```json\n([\s\S]*?)```/g)].map(
  (m) => JSON.parse(m[1]!) as { name: string },
)

test('every example rule is accepted as written, and the large mugs and VIP rules act as described', async () => {
  assert.deepEqual(
    examples.map((e) => e.name),
    ['Large mugs', 'Posters to the partner', 'VIP rush', 'Long engravings'],
  )
  const org = await t.tenant('Automation Docs')
  const developer = await memberOf(t, org.orgId, 'developer')
  for (const example of examples) {
    const res = await developer.client.call('POST', '/automation/rules', example)
    assert.equal(res.statusCode, 201, `${example.name}: ${res.body}`)
  }
  const vip = { name: 'Anna', email: 'anna@vip.example.com' }
  const many = await createOrder(
    t,
    org.liveKey,
    orderBody({ customer: vip, items: [{ sku: 'MUG-WHITE', name: 'Mug', quantity: 60 }] }),
  )
  const few = await createOrder(
    t,
    org.liveKey,
    orderBody({ customer: vip, items: [{ sku: 'MUG-WHITE', name: 'Mug', quantity: 2 }] }),
  )
  const read = async (id: string) =>
    (
      await sql<{ tags: string[]; priority: string; hold: { name: string } | null }>`
        select o.tags, p.priority, p.hold from orders o join production_orders p on p.order_id = o.id
        where o.id = ${id}::uuid`.execute(t.db)
    ).rows[0]!
  const held = await read(many.id)
  assert.deepEqual([held.hold?.name, held.tags, held.priority], ['Large mugs', ['large'], 'rush'])
  const rushed = await read(few.id)
  assert.deepEqual([rushed.hold, rushed.tags, rushed.priority], [null, [], 'rush'])
})
