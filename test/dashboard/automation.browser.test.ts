import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { orderBody, type TestApp } from '../helpers/app.ts'
import {
  assertAccessible,
  browserSkip,
  closeAll,
  signedInContext,
  startBrowserApp,
} from '../helpers/browser.ts'
import { type DashboardClient, memberOf, operatorOf } from '../helpers/dashboard.ts'
import { createOrder } from '../helpers/order-files.ts'

/**
 * The Automation page in headless Chromium: a developer builds "Large mugs"
 * with the form (a refused value shown beside its input), dry-runs it against
 * the live orders created beforehand through /v1, saves it, switches it off
 * and on, moves it above an older rule and deletes a third; a viewer reads
 * the list without any control, an operator reads it in the console. Both
 * widths pass axe.
 */
describe('the Automation page in a browser', { skip: browserSkip, timeout: 300_000 }, () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  let org: Awaited<ReturnType<TestApp['tenant']>>
  let bigMug: { id: string; external: string }
  let developer: { client: DashboardClient }

  before(async () => {
    ;({ t, origin, browser } = await startBrowserApp())
    org = await t.tenant('Automation Prints')
    const big = orderBody({
      external_order_id: 'BIG-MUG-1',
      items: [{ sku: 'MUG-XL', name: 'Large mug', quantity: 60 }],
    })
    bigMug = { id: (await createOrder(t, org.liveKey, big)).id, external: 'BIG-MUG-1' }
    await createOrder(t, org.liveKey, orderBody({ items: [{ sku: 'MUG-01', name: 'Mug', quantity: 2 }] }))
    await createOrder(
      t,
      org.liveKey,
      orderBody({ items: [{ sku: 'POSTER-A2', name: 'Poster', quantity: 80 }] }),
    )
    // A test order the rule would match: dry runs read live orders only.
    await createOrder(t, org.testKey, orderBody({ items: [{ sku: 'MUG-XL', name: 'Mug', quantity: 99 }] }))
    developer = await memberOf(t, org.orgId, 'developer')
    const older = await developer.client.call('POST', '/automation/rules', {
      name: 'VIP rush',
      conditions: [{ field: 'customer.email_domain', operator: 'equals', value: 'vip.example' }],
      actions: [{ type: 'priority', value: 'rush' }],
    })
    assert.equal(older.statusCode, 201, older.body)
  })
  after(() => closeAll(browser, t))

  /** The rules as stored: name, position, enabled. */
  async function stored() {
    const res = await developer.client.call('GET', '/automation/rules')
    assert.equal(res.statusCode, 200, res.body)
    return (res.json().data.rules as { name: string; position: number; enabled: boolean }[]).map((r) => [
      r.name,
      r.position,
      r.enabled,
    ])
  }

  const rule = (page: Page, name: RegExp) =>
    page.getByRole('listitem').filter({ has: page.getByRole('heading', { name }) })

  test('a developer creates, dry-runs, saves, switches and reorders a rule, and deletes another', async () => {
    const page = await (await signedInContext(browser, developer.client, origin)).newPage()
    await page.goto(`${origin}/dashboard/home`)
    await page
      .getByRole('navigation', { name: 'Dashboard' })
      .getByRole('link', { name: 'Automation' })
      .click()
    await page.getByRole('heading', { name: 'Automation', level: 1 }).waitFor()
    await page
      .getByText(
        'A rule change applies to orders arriving afterwards; orders already accepted keep what the rules did to them.',
      )
      .waitFor()
    await page.getByText('Rules run for live orders only.').waitFor()
    await rule(page, /^1\. VIP rush$/)
      .getByText('Then: Priority: rush')
      .waitFor()

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
    // Only the quantity's operators are offered.
    assert.deepEqual(
      await dialog.getByRole('combobox', { name: 'Condition 2 operator' }).locator('option').allInnerTexts(),
      ['greater than', 'at least', 'less than', 'at most', 'equal to'],
    )
    await dialog
      .getByRole('combobox', { name: 'Condition 2 operator' })
      .selectOption({ label: 'greater than' })
    await dialog.getByRole('combobox', { name: 'Action 1' }).selectOption({ label: 'Hold for review' })
    await dialog.getByRole('button', { name: 'Add an action' }).click()
    await dialog.getByRole('combobox', { name: 'Action 2' }).selectOption({ label: 'Tag' })
    await dialog.getByRole('textbox', { name: 'Action 2 tag' }).fill('large')

    // The quantity left empty: the service's message shows under that input.
    await dialog.getByRole('button', { name: 'Dry run' }).click()
    const quantity = dialog.getByRole('textbox', { name: 'Condition 2 value' })
    await dialog.getByText('conditions.1.value is required for this operator.').waitFor()
    assert.equal(await quantity.getAttribute('aria-invalid'), 'true')
    await dialog.getByRole('alert').getByText('See the fields marked above.').waitFor()

    await quantity.fill('50')
    await dialog.getByRole('button', { name: 'Dry run' }).click()
    const result = dialog.getByRole('status').filter({ hasText: 'Dry run' })
    await result.getByText('This rule would have matched 1 of your last 3 live orders.').waitFor()
    const matched = result.getByRole('table', { name: 'Orders the rule would have matched' })
    assert.equal(await matched.getByRole('row').count(), 2)
    const link = matched.getByRole('link', { name: bigMug.external })
    assert.equal(await link.getAttribute('href'), `/dashboard/orders/${bigMug.id}`)
    assert.equal(await matched.getByRole('cell', { name: 'pending' }).count(), 1)
    assert.deepEqual(await stored(), [['VIP rush', 1, true]], 'a dry run saves nothing')
    await assertAccessible(page, 'Automation: the form with a dry run')

    await dialog.getByRole('button', { name: 'Save rule' }).click()
    await dialog.waitFor({ state: 'detached' })
    const mugs = rule(page, /^2\. Large mugs$/)
    await mugs.getByText('When: Item SKU starts with MUG; Item quantity greater than 50').waitFor()
    await mugs.getByText('Then: Hold for review; Tag "large"').waitFor()
    assert.deepEqual(await stored(), [
      ['VIP rush', 1, true],
      ['Large mugs', 2, true],
    ])

    const enabled = mugs.getByRole('switch', { name: 'Enabled' })
    await enabled.click()
    await page.waitForFunction(
      () => !(document.querySelectorAll('[role="switch"]')[1] as HTMLInputElement).checked,
    )
    await mugs.getByRole('switch', { name: 'Enabled', disabled: false }).waitFor()
    assert.deepEqual((await stored())[1], ['Large mugs', 2, false])
    await enabled.click()
    await page.waitForFunction(
      () => (document.querySelectorAll('[role="switch"]')[1] as HTMLInputElement).checked,
    )
    await mugs.getByRole('switch', { name: 'Enabled', disabled: false }).waitFor()
    assert.deepEqual((await stored())[1], ['Large mugs', 2, true])

    await mugs.getByRole('button', { name: 'Move up' }).click()
    await rule(page, /^1\. Large mugs$/).waitFor()
    await rule(page, /^2\. VIP rush$/).waitFor()
    assert.deepEqual(await stored(), [
      ['Large mugs', 1, true],
      ['VIP rush', 2, true],
    ])
    assert.equal(
      await rule(page, /Large mugs/)
        .getByRole('button', { name: 'Move up' })
        .isDisabled(),
      true,
    )

    // A third rule, deleted after confirming: the list is back to two.
    const extra = await developer.client.call('POST', '/automation/rules', {
      name: 'Short lived',
      actions: [{ type: 'tag', value: 'temp' }],
    })
    assert.equal(extra.statusCode, 201, extra.body)
    await page.reload()
    await rule(page, /^3\. Short lived$/)
      .getByRole('button', { name: 'Delete' })
      .click()
    const confirm = page.getByRole('dialog', { name: 'Delete the rule "Short lived"?' })
    await confirm.getByText('orders it already acted on keep what it did', { exact: false }).waitFor()
    await confirm.getByRole('button', { name: 'Delete rule' }).click()
    await confirm.waitFor({ state: 'detached' })
    await rule(page, /Short lived/).waitFor({ state: 'detached' })
    assert.deepEqual(await stored(), [
      ['Large mugs', 1, true],
      ['VIP rush', 2, true],
    ])
    await assertAccessible(page, 'Automation at 1280 px')

    await page.setViewportSize({ width: 390, height: 844 })
    await rule(page, /Large mugs/)
      .getByRole('button', { name: 'Edit' })
      .click()
    const edit = page.getByRole('dialog', { name: 'Edit rule: Large mugs' })
    assert.equal(await edit.getByRole('textbox', { name: 'Condition 1 value' }).inputValue(), 'MUG')
    assert.equal(await edit.getByRole('textbox', { name: 'Condition 2 value' }).inputValue(), '50')
    assert.equal(await edit.getByRole('textbox', { name: 'Action 2 tag' }).inputValue(), 'large')
    await assertAccessible(page, 'Automation: the form at 390 px')
    await edit.getByRole('button', { name: 'Cancel' }).click()
    await edit.waitFor({ state: 'detached' })
    assert.ok(
      await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
      'nothing wider than the phone',
    )
    await assertAccessible(page, 'Automation at 390 px')
    await page.context().close()
  })

  test('a viewer reads the rules without any control', async () => {
    const viewer = await memberOf(t, org.orgId, 'viewer')
    const page = await (await signedInContext(browser, viewer.client, origin)).newPage()
    await page.goto(`${origin}/dashboard/home`)
    await page
      .getByRole('navigation', { name: 'Dashboard' })
      .getByRole('link', { name: 'Automation' })
      .click()
    await page.getByRole('heading', { name: 'Automation', level: 1 }).waitFor()
    const list = page.getByRole('list', { name: 'Rules in run order' })
    await list.getByRole('heading', { name: /Large mugs/ }).waitFor()
    assert.deepEqual(await list.getByRole('heading').allInnerTexts(), ['1. Large mugs', '2. VIP rush'])
    await rule(page, /Large mugs/)
      .getByText('Enabled', { exact: true })
      .waitFor()
    assert.equal(await page.getByRole('main').getByRole('button').count(), 0, 'no button')
    assert.equal(await page.getByRole('switch').count(), 0, 'no switch')
    await assertAccessible(page, 'Automation (viewer)')
    await page.setViewportSize({ width: 390, height: 844 })
    await assertAccessible(page, 'Automation (viewer) at 390 px')
    await page.context().close()
  })

  test("an operator reads the rules on the organization's console page", async () => {
    const operator = await operatorOf(t)
    const page = await (await signedInContext(browser, operator.client, origin)).newPage()
    await page.goto(`${origin}/dashboard/operator/organizations/${org.orgId}`)
    const table = page.getByRole('table', { name: 'Automation rules, in the order they run' })
    await table.waitFor()
    // The text as written (the badge shows it in capitals).
    assert.deepEqual(await table.getByRole('row').nth(1).getByRole('cell').allTextContents(), [
      '1',
      'Large mugs',
      'Enabled',
      'Item SKU starts with MUG; Item quantity greater than 50',
      'Hold for review; Tag "large"',
    ])
    assert.equal(await table.getByRole('row').count(), 3)
    await assertAccessible(page, "The console's organization page with its rules")
    await page.context().close()
  })
})
