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
 * What automation rules did, seen in headless Chromium: the console's board
 * shows a held order apart with its rule and no Start button; Orders filters
 * by tag and held; the order page says why it is held, with the rules on its
 * timeline, and an owner releases it; the board then lists it as startable,
 * after the rush order. A viewer sees no Release button.
 */
describe('held, rush and tagged orders in a browser', { skip: browserSkip, timeout: 300_000 }, () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  let org: Awaited<ReturnType<TestApp['tenant']>>
  let owner: Awaited<ReturnType<typeof memberOf>>
  const held = { id: '', external: '' }
  const rush = { id: '', external: '' }

  before(async () => {
    ;({ t, origin, browser } = await startBrowserApp())
    org = await t.tenant('Browser Held Prints')
    owner = await memberOf(t, org.orgId, 'owner')
    for (const rule of [
      {
        name: 'Large mugs',
        conditions: [
          { field: 'item.sku', operator: 'starts_with', value: 'MUG' },
          { field: 'item.quantity', operator: 'gt', value: 50 },
        ],
        actions: [{ type: 'hold' }, { type: 'tag', value: 'large' }],
      },
      {
        name: 'Rush cards',
        conditions: [{ field: 'item.sku', operator: 'equals', value: 'CARD' }],
        actions: [{ type: 'priority', value: 'rush' }],
      },
    ]) {
      const res = await owner.client.call('POST', '/automation/rules', rule)
      assert.equal(res.statusCode, 201, res.body)
    }
    const mugs = orderBody({ items: [{ sku: 'MUG-01', name: 'Mug', quantity: 80 }] })
    held.id = (await createOrder(t, org.liveKey, mugs)).id
    held.external = mugs.external_order_id
    const cards = orderBody({ items: [{ sku: 'CARD', name: 'Card', quantity: 1 }] })
    rush.id = (await createOrder(t, org.liveKey, cards)).id
    rush.external = cards.external_order_id
  })
  after(() => closeAll(browser, t))

  test('the board shows the held order apart; Orders filters; the order page releases it; the board starts it after the rush order', async () => {
    const operator = await operatorOf(t)
    const console = await (await signedInContext(browser, operator.client, origin)).newPage()
    const consoleSeen = await watchPage(console)
    await console.goto(`${origin}/dashboard/operator/production?organization_id=${org.orgId}`)
    const board = console.getByRole('table', { name: /rush first/ })
    await board.getByRole('link', { name: `Open production order ${rush.external}` }).waitFor()
    assert.equal(await board.getByRole('link', { name: `Open production order ${held.external}` }).count(), 0)
    await console.getByText('Held for review (1)').click()
    const apart = console.getByRole('table', { name: /held for review/ })
    await apart.getByRole('link', { name: `Open production order ${held.external}` }).waitFor()
    await apart.getByText("Held for review by rule 'Large mugs'", { exact: false }).waitFor()
    assert.equal(await apart.getByRole('button', { name: `Start production: ${held.external}` }).count(), 0)
    await assertAccessible(console, 'board, held for review')

    const page = await (await signedInContext(browser, owner.client, origin)).newPage()
    const seen = await watchPage(page)
    await page.goto(`${origin}/dashboard/orders`)
    await page.getByRole('textbox', { name: 'Tag' }).fill('large')
    await page.getByRole('button', { name: 'Search' }).click()
    await page.getByRole('link', { name: held.external }).waitFor()
    await page.getByRole('link', { name: rush.external }).waitFor({ state: 'detached' })
    await page.getByRole('button', { name: 'Clear filters' }).click()
    await page.getByRole('combobox', { name: 'Held for review' }).selectOption('true')
    await page.getByRole('link', { name: held.external }).waitFor()
    await page.getByRole('link', { name: rush.external }).waitFor({ state: 'detached' })
    await assertAccessible(page, 'orders filtered by held')

    await page.getByRole('link', { name: held.external }).click()
    await page.getByRole('heading', { name: `Order ${held.external}`, level: 1 }).waitFor()
    await page
      .getByText(
        "Held for review by rule 'Large mugs': Item SKU starts with MUG; Item quantity greater than 50.",
        { exact: false },
      )
      .waitFor()
    const timeline = page.getByRole('region', { name: 'Timeline' })
    await timeline
      .getByText(`Rule 'Large mugs' held this order for review and tagged this order "large"`)
      .waitFor()
    await assertAccessible(page, 'held order page')
    await page.getByRole('button', { name: 'Release' }).click()
    await timeline.getByText(`Released by ${owner.email} (held by rule 'Large mugs')`).waitFor()
    await page.getByRole('button', { name: 'Release' }).waitFor({ state: 'detached' })

    // Back on the board: startable now, after the rush order.
    await console.getByText(/^Pending \(\d+\)$/).click()
    const pending = console.getByRole('table', { name: /rush first/ })
    await pending.getByRole('button', { name: `Start production: ${held.external}` }).waitFor()
    const links = await pending.getByRole('link', { name: /^Open production order/ }).allTextContents()
    assert.deepEqual(links, [rush.external, held.external])
    await assertAccessible(console, 'board after the release')
    assert.deepEqual(seen.cspViolations, [])
    assert.deepEqual(consoleSeen.cspViolations, [])

    // A viewer sees why the order was held (nothing to release now) and no Release button.
    const viewer = await memberOf(t, org.orgId, 'viewer')
    const another = await createOrder(
      t,
      org.liveKey,
      orderBody({ items: [{ sku: 'MUG-02', name: 'Mug', quantity: 99 }] }),
    )
    const viewing = await (await signedInContext(browser, viewer.client, origin)).newPage()
    await viewing.goto(`${origin}/dashboard/orders/${another.id}`)
    await viewing.getByText("Held for review by rule 'Large mugs'", { exact: false }).waitFor()
    assert.equal(await viewing.getByRole('button', { name: 'Release' }).count(), 0)
  })
})
