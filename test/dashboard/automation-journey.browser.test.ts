import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser } from 'playwright-core'
import { orderBody, type TestApp } from '../helpers/app.ts'
import {
  assertAccessible,
  browserSkip,
  closeAll,
  signedInContext,
  startBrowserApp,
  watchPage,
} from '../helpers/browser.ts'
import { memberOf, operatorOf } from '../helpers/dashboard.ts'
import { createOrder } from '../helpers/order-files.ts'

/**
 * Automation from end to end, as a developer and an operator would do it: a
 * rule built in the form and dry-run against the organization's live orders,
 * saved; a matching live order sent through /v1 arrives held; the console's
 * board keeps it apart until the developer releases it on the order's page,
 * and then it is startable on the board.
 */
describe('an automation rule from the form to the board', { skip: browserSkip, timeout: 300_000 }, () => {
  let t: TestApp
  let browser: Browser
  let origin: string

  before(async () => {
    ;({ t, origin, browser } = await startBrowserApp())
  })
  after(() => closeAll(browser, t))

  test('create, dry-run, an order through /v1 held, released, startable on the board', async () => {
    const org = await t.tenant('Journey Automation Prints')
    const earlier = orderBody({
      external_order_id: 'EARLIER-BIG',
      items: [{ sku: 'MUG-XL', name: 'Large mug', quantity: 70 }],
    })
    await createOrder(t, org.liveKey, earlier)
    await createOrder(t, org.liveKey, orderBody({ items: [{ sku: 'CARD', name: 'Card', quantity: 1 }] }))
    const developer = await memberOf(t, org.orgId, 'developer')

    const page = await (await signedInContext(browser, developer.client, origin)).newPage()
    const seen = await watchPage(page)
    await page.goto(`${origin}/dashboard/automation`)
    await page.getByRole('heading', { name: 'Automation', level: 1 }).waitFor()
    await page.getByRole('button', { name: 'New rule' }).click()
    const dialog = page.getByRole('dialog', { name: 'New rule' })
    await dialog.getByRole('textbox', { name: 'Name' }).fill('Large mugs')
    await dialog.getByRole('combobox', { name: 'Condition 1 field' }).selectOption({ label: 'Item SKU' })
    await dialog
      .getByRole('combobox', { name: 'Condition 1 operator' })
      .selectOption({ label: 'starts with' })
    await dialog.getByRole('textbox', { name: 'Condition 1 value' }).fill('MUG')
    await dialog.getByRole('button', { name: 'Add a condition' }).click()
    await dialog.getByRole('combobox', { name: 'Condition 2 field' }).selectOption({ label: 'Item quantity' })
    await dialog
      .getByRole('combobox', { name: 'Condition 2 operator' })
      .selectOption({ label: 'greater than' })
    await dialog.getByRole('textbox', { name: 'Condition 2 value' }).fill('50')
    await dialog.getByRole('combobox', { name: 'Action 1' }).selectOption({ label: 'Hold for review' })
    await dialog.getByRole('button', { name: 'Dry run' }).click()
    const result = dialog.getByRole('status').filter({ hasText: 'Dry run' })
    await result.getByText('This rule would have matched 1 of your last 2 live orders.').waitFor()
    await result.getByRole('link', { name: 'EARLIER-BIG' }).waitFor()
    await dialog.getByRole('button', { name: 'Save rule' }).click()
    await dialog.waitFor({ state: 'detached' })
    await page.getByRole('heading', { name: /^1\. Large mugs$/ }).waitFor()

    // A live order through the API: accepted, and held by the rule.
    const body = orderBody({
      external_order_id: 'JOURNEY-MUGS',
      items: [{ sku: 'MUG-WHITE', name: 'White mug', quantity: 120 }],
    })
    const res = await t.api(org.liveKey, 'POST', '/v1/orders', body)
    assert.equal(res.statusCode, 201, res.body)
    const orderId = res.json().data.order.id as string

    const operator = await operatorOf(t)
    const board = await (await signedInContext(browser, operator.client, origin)).newPage()
    await board.goto(`${origin}/dashboard/operator/production?organization_id=${org.orgId}`)
    const startable = board.getByRole('table', { name: /rush first/ })
    await startable.waitFor()
    assert.equal(await startable.getByRole('link', { name: 'Open production order JOURNEY-MUGS' }).count(), 0)
    await board.getByText('Held for review (1)').click()
    const held = board.getByRole('table', { name: /held for review/ })
    await held.getByRole('link', { name: 'Open production order JOURNEY-MUGS' }).waitFor()
    await held.getByText("Held for review by rule 'Large mugs'", { exact: false }).waitFor()

    await page.goto(`${origin}/dashboard/orders/${orderId}`)
    await page.getByRole('heading', { name: 'Order JOURNEY-MUGS', level: 1 }).waitFor()
    await page
      .getByText(
        "Held for review by rule 'Large mugs': Item SKU starts with MUG; Item quantity greater than 50.",
        {
          exact: false,
        },
      )
      .waitFor()
    await page.getByRole('button', { name: 'Release' }).click()
    await page
      .getByRole('region', { name: 'Timeline' })
      .getByText(`Released by ${developer.email} (held by rule 'Large mugs')`)
      .waitFor()
    await assertAccessible(page, 'the released order')

    await board.getByText(/^Pending \(\d+\)$/).click()
    await board
      .getByRole('table', { name: /rush first/ })
      .getByRole('button', { name: 'Start production: JOURNEY-MUGS' })
      .waitFor()
    await board.getByText('Held for review (0)').waitFor()
    assert.deepEqual(seen.cspViolations, [])
  })
})
