import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { newId } from '../../src/lib/ids.ts'
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
import { createOrder } from '../helpers/operator.ts'
import { waitUntil } from '../helpers/wait.ts'
import { settleDelivery } from '../helpers/webhook-endpoints.ts'

/**
 * Home's and the console's charts (live orders per day by status, webhook
 * success rate per day) drawn under the strict CSP, their numbers as tables
 * for screen readers, cards that open the lists they count; and the member's
 * environment remembered across Orders, Webhooks, Home and API keys, with a
 * test-mode banner whenever Test is on.
 */
describe('charts and the remembered environment in a browser', {
  skip: browserSkip,
  timeout: 600_000,
}, () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  let tenant: { orgId: string; testKey: string; liveKey: string }
  let owner: Awaited<ReturnType<typeof memberOf>>
  let endpointId: string

  before(async () => {
    ;({ t, origin, browser } = await startBrowserApp())
    tenant = await t.tenant('Chart Prints')
    owner = await memberOf(t, tenant.orgId, 'owner')
    // A live endpoint (written as registering one would), so live orders make deliveries.
    endpointId = newId()
    await t.db
      .insertInto('webhook_endpoints')
      .values({
        id: endpointId,
        organization_id: tenant.orgId,
        environment: 'live',
        url: 'https://hooks.example.com/in',
        description: '',
        secret_encrypted: 'sealed',
        pinned_addresses: [],
        is_active: true,
        disabled_reason: null,
        last_success_at: null,
        last_failure_at: null,
        created_at: new Date(),
        disabled_at: null,
      })
      .execute()
    for (let n = 0; n < 4; n++) await createOrder(t, tenant.liveKey, orderBody())
    await createOrder(t, tenant.testKey, orderBody())
    // Three of the four deliveries succeeded, one was given up: a 75% day.
    const deliveries = await t.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('endpoint_id', '=', endpointId)
      .orderBy('id')
      .execute()
    assert.equal(deliveries.length, 4)
    for (const [n, { id }] of deliveries.entries()) {
      await settleDelivery(t, id, n === 0 ? 'failed' : 'succeeded', new Date())
    }
  })
  after(() => closeAll(browser, t))

  async function open(client: { cookies: Map<string, string> }, path: string, width = 1280) {
    const context = await signedInContext(browser, client, origin, 60_000)
    await context.pages()[0]?.close()
    const page = await context.newPage()
    await page.setViewportSize({ width, height: 900 })
    const seen = await watchPage(page)
    await page.goto(`${origin}/dashboard${path}`)
    return { page, seen }
  }

  const today = () => new Date().toISOString().slice(0, 10)

  async function assertCharts(page: Page, orders: number) {
    const ordersChart = page.getByRole('region', { name: 'Live orders per day, last 30 days' })
    await ordersChart.getByRole('img', { name: new RegExp(`${orders} orders`) }).waitFor()
    // The bars are drawn (an SVG per chart, a rectangle for today's pending orders).
    await waitUntil(
      async () => (await ordersChart.locator('.recharts-bar-rectangle path').count()) > 0,
      'bars drawn',
    )
    const rate = page.getByRole('region', { name: 'Webhook success rate per day, last 30 days' })
    await rate.locator('svg').first().waitFor()
    // The same numbers for screen readers: today's row is last.
    const table = page.getByRole('table', {
      name: 'Live orders per day by current status',
      includeHidden: true,
    })
    const rows = table.getByRole('row', { includeHidden: true })
    assert.equal(await rows.count(), 31)
    assert.deepEqual(await rows.last().getByRole('cell', { includeHidden: true }).allTextContents(), [
      String(orders),
      String(orders),
      '0',
      '0',
      '0',
      '0',
    ])
    assert.equal(await rows.last().getByRole('rowheader', { includeHidden: true }).textContent(), today())
  }

  test('Home: orders per day and webhook success rate as charts and tables; cards open their lists', async () => {
    // A ping whose attempt failed, its retry to come: the endpoint is failing; the ping is neither settled nor failed.
    const ping = await t.api(tenant.liveKey, 'POST', `/v1/webhook-endpoints/${endpointId}/test`)
    assert.equal(ping.statusCode, 202, ping.body)
    const retrying = await t.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('endpoint_id', '=', endpointId)
      .where('event_type', '=', 'ping')
      .executeTakeFirstOrThrow()
    await settleDelivery(t, retrying.id, 'pending', new Date())
    const { page, seen } = await open(owner.client, '/home')
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor()
    await assertCharts(page, 4)
    const rates = page.getByRole('table', { name: 'Live webhook deliveries per day', includeHidden: true })
    assert.deepEqual(
      await rates
        .getByRole('row', { includeHidden: true })
        .last()
        .getByRole('cell', { includeHidden: true })
        .allTextContents(),
      ['3', '1', '75%'],
    )
    await page.getByRole('img', { name: /75% of 4 settled deliveries succeeded, 1 failed/ }).waitFor()
    // The failed figure counts what the rate counts (settled deliveries, 30 days): the retrying ping is not in it.
    const figure = (label: string) => page.getByRole('link', { name: new RegExp(`^${label}`) })
    await figure('Deliveries failed \\(given up\\), last 30 days\\s*1$').waitFor()
    await figure('Failing endpoints, deliveries waiting\\s*1$').waitFor()
    await assertAccessible(page, 'home with charts')

    await page.getByRole('link', { name: /^Live orders today/ }).click()
    await page.waitForURL(new RegExp(`/dashboard/orders\\?environment=live&from=${today()}`))
    const list = page.getByRole('table', { name: 'Live orders, newest first' })
    await waitUntil(
      async () => (await list.getByRole('row').count()) === 5,
      'the 4 live orders of today listed',
    )
    await page.goBack()
    await figure('Deliveries failed').click()
    await page.waitForURL(/\/dashboard\/webhooks\?environment=live/)
    assert.deepEqual(seen.cspViolations, [])
    await page.context().close()
  })

  test('Home at 390 px: the charts fit the width', async () => {
    const { page, seen } = await open(owner.client, '/home', 390)
    await assertCharts(page, 4)
    const widths = await page.evaluate(() =>
      [...document.querySelectorAll('section svg.recharts-surface')].map(
        (s) => s.getBoundingClientRect().right,
      ),
    )
    assert.ok(
      widths.length >= 2 && widths.every((right) => right <= 390),
      `charts end within 390 px: ${widths}`,
    )
    // The test-mode banner fits too: the page never scrolls sideways.
    await page.goto(`${origin}/dashboard/orders?environment=test`)
    await page
      .getByRole('status', { name: 'Test mode' })
      .getByRole('button', { name: 'Switch to Live' })
      .waitFor()
    const banner = await page.getByRole('status', { name: 'Test mode' }).boundingBox()
    assert.ok(
      banner && banner.x >= 0 && banner.x + banner.width <= 390,
      `banner within 390 px: ${JSON.stringify(banner)}`,
    )
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 390), 'no sideways scrolling')
    assert.deepEqual(seen.cspViolations, [])
    await page.context().close()
  })

  test('the console Statistics: the same charts across organizations', async () => {
    const operator = await operatorOf(t)
    const { page, seen } = await open(operator.client, '/operator/statistics')
    await page.getByRole('heading', { name: 'Statistics', level: 1 }).waitFor()
    await assertCharts(page, 4)
    await page.getByRole('img', { name: /75% of 4 settled deliveries succeeded/ }).waitFor()
    await assertAccessible(page, 'statistics with charts')
    // An operator has no environment: never a test-mode banner.
    assert.equal(await page.getByRole('status', { name: 'Test mode' }).count(), 0)
    assert.deepEqual(seen.cspViolations, [])
    await page.context().close()
  })

  test('the environment picked on Orders is kept on Webhooks, Home and API keys, with a test-mode banner', async () => {
    const { page, seen } = await open(owner.client, '/orders')
    const banner = page.getByRole('status', { name: 'Test mode' })
    await page.getByRole('table', { name: 'Live orders, newest first' }).waitFor()
    assert.equal(await banner.count(), 0)

    await page.getByText('Test', { exact: true }).click()
    await page.getByRole('table', { name: 'Test orders, newest first' }).waitFor()
    await banner.waitFor()
    await assertAccessible(page, 'orders in test mode')

    const nav = page.getByRole('navigation', { name: 'Dashboard' })
    await nav.getByRole('link', { name: 'Webhooks' }).click()
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor()
    await waitUntil(() => page.getByRole('radio', { name: 'Test' }).isChecked(), 'Webhooks opens on Test')
    await banner.waitFor()
    await nav.getByRole('link', { name: 'Home' }).click()
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor()
    await banner.waitFor()
    await nav.getByRole('link', { name: 'API keys' }).click()
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor()
    await waitUntil(() => page.getByRole('radio', { name: 'Test' }).isChecked(), 'a new key is a test key')
    await assertAccessible(page, 'API keys in test mode')

    // Remembered in this browser for the member: a new visit opens on Test.
    await page.goto(`${origin}/dashboard/webhooks`)
    await waitUntil(() => page.getByRole('radio', { name: 'Test' }).isChecked(), 'Webhooks still on Test')
    await banner.getByRole('button', { name: 'Switch to Live' }).click()
    await banner.waitFor({ state: 'detached' })
    await waitUntil(() => page.getByRole('radio', { name: 'Live' }).isChecked(), 'back on Live')
    await page.goto(`${origin}/dashboard/orders`)
    await page.getByRole('table', { name: 'Live orders, newest first' }).waitFor()
    assert.equal(await banner.count(), 0)

    // A shared link naming Test switches to it; Switch to Live wins over the address.
    await page.goto(`${origin}/dashboard/orders?environment=test`)
    await page.getByRole('table', { name: 'Test orders, newest first' }).waitFor()
    await banner.getByRole('button', { name: 'Switch to Live' }).click()
    await page.waitForURL(/environment=live/)
    await page.getByRole('table', { name: 'Live orders, newest first' }).waitFor()
    assert.equal(await banner.count(), 0)

    // Another member of the organization in the same browser keeps their own choice (Live).
    await page.getByText('Test', { exact: true }).click()
    await banner.waitFor()
    const viewer = await memberOf(t, tenant.orgId, 'viewer')
    await page
      .context()
      .addCookies([...viewer.client.cookies].map(([name, value]) => ({ name, value, url: origin })))
    await page.goto(`${origin}/dashboard/webhooks`)
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor()
    await waitUntil(
      () => page.getByRole('radio', { name: 'Live' }).isChecked(),
      'the other member opens on Live',
    )
    assert.equal(await banner.count(), 0)
    assert.deepEqual(seen.cspViolations, [])
    await page.context().close()
  })
})
