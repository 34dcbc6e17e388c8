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
  tabStops,
  watchPage,
} from '../helpers/browser.ts'
import { memberOf } from '../helpers/dashboard.ts'
import { createOrder } from '../helpers/operator.ts'
import { waitUntil } from '../helpers/wait.ts'

/**
 * Home and Orders in headless Chromium: an order created through /v1 with a
 * live key appears on both without a reload (they poll), filters narrow the
 * list and live in the URL, test orders stay off Home, and both pages pass
 * axe and are reachable by keyboard.
 */
describe('Home and Orders in a browser', { skip: browserSkip, timeout: 600_000 }, () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  let tenant: { orgId: string; testKey: string; liveKey: string }
  let viewer: Awaited<ReturnType<typeof memberOf>>

  before(async () => {
    ;({ t, origin, browser } = await startBrowserApp())
    tenant = await t.tenant('Browser Prints')
    viewer = await memberOf(t, tenant.orgId, 'viewer')
  })
  after(() => closeAll(browser, t))

  async function open(path: string): Promise<{ page: Page; seen: Awaited<ReturnType<typeof watchPage>> }> {
    const context = await signedInContext(browser, viewer.client, origin, 120_000)
    const page = await context.newPage()
    const seen = await watchPage(page)
    await page.goto(`${origin}/dashboard${path}`)
    return { page, seen }
  }

  // Each figure is a card that links to the list it counts.
  const figure = (page: Page, label: RegExp) => page.getByRole('link', { name: label })

  test('an order made through /v1 appears on Home without a reload; test orders never do', async () => {
    const { page, seen } = await open('/')
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor()
    await page.getByText(/UTC/).first().waitFor()
    const today = figure(page, /^Live orders today/)
    await today.getByText('0', { exact: true }).waitFor()
    await assertAccessible(page, 'home (empty)')

    await createOrder(t, tenant.testKey, orderBody())
    await createOrder(t, tenant.liveKey, orderBody())
    await today.getByText('1', { exact: true }).waitFor()
    const row = page.getByRole('row', { name: /^Today/ })
    // 1 order, pending 1, 2 item lines, quantity 3: the test order is not counted.
    await row.getByRole('cell').nth(5).getByText('0').waitFor()
    assert.deepEqual(await row.getByRole('cell').allInnerTexts(), ['1', '1', '0', '0', '0', '0', '2', '3'])
    await assertAccessible(page, 'home')

    const stops = await tabStops(page, 6)
    for (const name of ['Home', 'Orders'])
      assert.ok(stops.includes(name), `Tab reaches ${name}: ${stops.join(' | ')}`)
    assert.deepEqual(seen.cspViolations, [])
    await page.context().close()
  })

  test('Orders: a new live order appears without a reload; environment and filters in the URL', async () => {
    const { page, seen } = await open('/orders')
    await page.getByRole('heading', { name: 'Orders', level: 1 }).waitFor()
    const table = page.getByRole('table', { name: 'Live orders, newest first' })
    await table.waitFor()
    const before = await table.getByRole('row').count()

    const body = {
      ...orderBody({ external_order_id: 'SHOP-7781' }),
      customer: { name: 'Grace Hopper', email: 'grace@example.com' },
    }
    const created = await createOrder(t, tenant.liveKey, body)
    const link = table.getByRole('link', { name: 'SHOP-7781' })
    await link.waitFor()
    await waitUntil(async () => (await table.getByRole('row').count()) === before + 1, 'one row more')
    assert.equal(await link.getAttribute('href'), `/dashboard/orders/${created.order.id}`)
    await assertAccessible(page, 'orders')

    await page.getByLabel('Search').fill('grace@')
    await page.getByRole('button', { name: 'Search' }).click()
    await page.waitForURL(/q=grace%40/)
    await table.getByRole('row').nth(2).waitFor({ state: 'detached' })
    await waitUntil(
      async () => (await table.getByRole('link').allInnerTexts()).join() === 'SHOP-7781',
      'only the matching order listed',
    )

    await page.getByLabel('Status').selectOption('completed')
    await page.getByText('No live orders match.').waitFor()
    await page.getByRole('button', { name: 'Clear filters' }).click()
    await link.waitFor()

    await page.getByText('Test', { exact: true }).click()
    await page.waitForURL(/environment=test/)
    const testTable = page.getByRole('table', { name: 'Test orders, newest first' })
    await testTable.waitFor()
    assert.equal(await testTable.getByRole('link', { name: 'SHOP-7781' }).count(), 0)
    await assertAccessible(page, 'orders (test)')

    const stops = await tabStops(page, 20)
    for (const name of ['Search', 'Status', 'Clear filters']) {
      assert.ok(
        stops.some((s) => s.startsWith(name)),
        `Tab reaches ${name}: ${stops.join(' | ')}`,
      )
    }
    assert.deepEqual(seen.cspViolations, [])
    await page.context().close()
  })
})
