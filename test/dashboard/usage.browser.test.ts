import assert from 'node:assert/strict'
import { text } from 'node:stream/consumers'
import { after, before, describe, test } from 'node:test'
import type { Browser } from 'playwright-core'
import { orderBody, type TestApp } from '../helpers/app.ts'
import {
  assertAccessible,
  browserSkip,
  closeAll,
  signedInContext,
  startBrowserApp,
} from '../helpers/browser.ts'
import { memberOf, operatorOf } from '../helpers/dashboard.ts'
import { createOrder } from '../helpers/order-files.ts'

/**
 * Usage for billing in headless Chromium: an operator opens Billing, picks the
 * month, reads the organization's row and the totals, and downloads the CSV;
 * an owner reads the organization's own Usage page; a developer and a viewer
 * have no Usage page.
 */
describe('usage for billing in a browser', { skip: browserSkip, timeout: 300_000 }, () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  let orgId: string
  const month = new Date().toISOString().slice(0, 7)

  before(async () => {
    ;({ t, origin, browser } = await startBrowserApp())
    const org = await t.tenant('Usage Prints')
    orgId = org.orgId
    const mug = await t.admin('POST', `/admin/v1/organizations/${orgId}/products`, {
      sku: 'MUG',
      name: 'Mug',
    })
    assert.equal(mug.statusCode, 201, mug.body)
    await createOrder(t, org.liveKey, orderBody({ items: [{ sku: 'MUG', name: 'Mug', quantity: 3 }] }))
    const cancelled = await createOrder(
      t,
      org.liveKey,
      orderBody({
        items: [
          { sku: 'MUG', name: 'Mug', quantity: 1 },
          { sku: 'CARD', name: 'Card', quantity: 2 },
        ],
      }),
    )
    const cancel = await t.admin('POST', `/admin/v1/orders/${cancelled.id}/cancel`)
    assert.equal(cancel.statusCode, 200, cancel.body)
    await createOrder(t, org.testKey, orderBody({ items: [{ sku: 'MUG', name: 'Mug', quantity: 50 }] }))
  })
  after(() => closeAll(browser, t))

  test('an operator picks the month on Billing, reads the row and totals, and downloads the CSV', async () => {
    const operator = await operatorOf(t)
    const context = await signedInContext(browser, operator.client, origin)
    const page = await context.newPage()
    await page.goto(`${origin}/dashboard/`)
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Billing' }).click()
    await page.getByRole('heading', { name: 'Billing', level: 1 }).waitFor()
    await page.getByText('a cancelled order stays counted in its month').waitFor()

    // Last month first (nothing there), then back to this one.
    const picker = page.getByLabel('Month (UTC)')
    const months = await picker
      .locator('option')
      .evaluateAll((o) => o.map((x) => (x as HTMLOptionElement).value))
    assert.equal(months[0], month)
    await picker.selectOption(months[1]!)
    const table = page.getByRole('table', { name: /Usage per organization in/ })
    await page.getByRole('table', { name: `Usage per organization in ${months[1]}` }).waitFor()
    const row = () => table.getByRole('row').filter({ hasText: 'Usage Prints' })
    assert.deepEqual(await row().getByRole('cell').allInnerTexts(), ['0', '0', '0', '–'])
    await picker.selectOption(month)
    await page.getByRole('table', { name: `Usage per organization in ${month}` }).waitFor()
    assert.deepEqual(await row().getByRole('cell').allInnerTexts(), [
      '2',
      '3',
      '6',
      'MUG × 4, no product × 2',
    ])
    const total = table.locator('tfoot').getByRole('row')
    assert.deepEqual(await total.getByRole('cell').allInnerTexts(), ['2', '3', '6', ''])
    await assertAccessible(page, 'Billing')

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download CSV' }).click(),
    ])
    assert.equal(download.suggestedFilename(), `usage-${month}.csv`)
    // The browser is the run's (connected to, not launched): its download is read as a stream.
    const csv = await text(await download.createReadStream())
    const lines = csv.trimEnd().split('\r\n')
    assert.equal(
      lines[0],
      'month,organization_id,organization,line,product_id,sku,product,orders,items,quantity',
    )
    assert.deepEqual(
      lines.slice(1).map((l) => l.replace(/,[0-9a-f-]{36},(MUG)/, ',PRODUCT,$1')),
      [
        `${month},${orgId},Usage Prints,organization,,,,2,3,6`,
        `${month},${orgId},Usage Prints,product,PRODUCT,MUG,Mug,2,2,4`,
        `${month},${orgId},Usage Prints,unlinked,,,,,1,2`,
      ],
    )
    await context.close()
  })

  test('an owner reads the Usage page; a developer and a viewer have none', async () => {
    const owner = await memberOf(t, orgId, 'owner')
    const context = await signedInContext(browser, owner.client, origin)
    const page = await context.newPage()
    await page.goto(`${origin}/dashboard/home`)
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Usage' }).click()
    await page.getByRole('heading', { name: 'Usage', level: 1 }).waitFor()
    const products = page.getByRole('table', { name: `Usage by product in ${month}` })
    await products.waitFor()
    assert.deepEqual(
      await products.getByRole('row').filter({ hasText: 'Mug (MUG)' }).getByRole('cell').allInnerTexts(),
      ['2', '2', '4'],
    )
    assert.deepEqual(
      await products
        .getByRole('row')
        .filter({ hasText: 'Linked to no product' })
        .getByRole('cell')
        .allInnerTexts(),
      ['–', '1', '2'],
    )
    await page.getByText('Live orders').locator('..').getByText('2', { exact: true }).waitFor()
    await assertAccessible(page, 'Usage')
    await context.close()

    for (const role of ['developer', 'viewer'] as const) {
      const member = await memberOf(t, orgId, role)
      const ctx = await signedInContext(browser, member.client, origin)
      const p = await ctx.newPage()
      await p.goto(`${origin}/dashboard/usage`)
      // Sent to Home, with no Usage in the navigation.
      await p.getByRole('heading', { name: 'Home', level: 1 }).waitFor()
      const nav = p.getByRole('navigation', { name: 'Dashboard' })
      assert.equal(await nav.getByRole('link', { name: 'Usage' }).count(), 0, role)
      assert.ok((await nav.getByRole('link').allInnerTexts()).includes('Products'))
      await ctx.close()
    }
  })
})
