import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { text } from 'node:stream/consumers'
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
  waitForCount,
  watchedPages,
} from '../helpers/browser.ts'
import { memberOf, operatorOf } from '../helpers/dashboard.ts'
import { createOrder as createOrderView } from '../helpers/operator.ts'
import { createOrder } from '../helpers/order-files.ts'
import { settleDelivery } from '../helpers/webhook-endpoints.ts'

/** Set to a name (before, after) to save the pages as docs/images/changes/audit-log*-<name>.png. */
const SHOTS = process.env.AUDIT_LOG_SHOTS

/**
 * What members and operators read about their use of the service, in
 * headless Chromium, on one service: Home's and the console's charts (live
 * orders per day by status, webhook success rate per day) under the strict
 * CSP with their numbers as tables, and the environment remembered across
 * pages with a test-mode banner; usage for billing (the console's Billing with
 * its CSV, an owner's Usage page); and both audit logs as sentences with their
 * filters, CSVs and the header searches. Each part has its own organization,
 * in this order: the console's statistics count every organization's orders,
 * so the charts come before the other parts make any; the console's figures
 * across organizations are compared with the service's. One operator reads
 * the console; no page has a CSP violation.
 */
describe('charts, usage and audit logs in a browser', { skip: browserSkip, timeout: 900_000 }, () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  let operator: Awaited<ReturnType<typeof operatorOf>>
  const pages = watchedPages()

  before(async () => {
    ;({ t, origin, browser } = await startBrowserApp())
    operator = await operatorOf(t)
  })
  after(() => closeAll(pages, browser, t))

  /** A page in a signed-in profile of its own, watched for CSP violations. */
  const pageOf = async (member: { client: { cookies: Map<string, string> } }) =>
    pages.open(await signedInContext(browser, member.client, origin, 60_000))
  let consolePage: Page | undefined
  /** The operator's one page. */
  const operatorPage = async () => {
    consolePage ??= await pageOf(operator)
    await consolePage.setViewportSize({ width: 1280, height: 900 })
    return consolePage
  }

  /**
   * Home's and the console's charts, drawn under the strict CSP, their
   * numbers as tables for screen readers, cards that open the lists they
   * count; and the member's environment remembered across Orders, Webhooks,
   * Home and API keys, with a test-mode banner whenever Test is on.
   */
  describe('charts and the remembered environment', () => {
    let tenant: { orgId: string; testKey: string; liveKey: string }
    let owner: Awaited<ReturnType<typeof memberOf>>
    let endpointId: string
    let homePage: Page | undefined
    /** The owner's page for Home (the environment test has a profile of its own). */
    const ownerPage = async () => {
      homePage ??= await pageOf(owner)
      return homePage
    }

    before(async () => {
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
      for (let n = 0; n < 4; n++) await createOrderView(t, tenant.liveKey, orderBody())
      await createOrderView(t, tenant.testKey, orderBody())
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

    const today = () => new Date().toISOString().slice(0, 10)

    async function assertCharts(page: Page, orders: number) {
      const ordersChart = page.getByRole('region', { name: 'Live orders per day, last 30 days' })
      await ordersChart.getByRole('img', { name: new RegExp(`${orders} orders`) }).waitFor()
      // The bars are drawn (an SVG per chart, a rectangle for today's pending orders).
      await ordersChart.locator('.recharts-bar-rectangle path').first().waitFor({ state: 'attached' })
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
      const page = await ownerPage()
      await page.goto(`${origin}/dashboard/home`)
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
      await waitForCount(list.getByRole('row'), 5, 'the 4 live orders of today listed (and the header)')
      await page.goBack()
      await figure('Deliveries failed').click()
      await page.waitForURL(/\/dashboard\/webhooks\?environment=live/)
    })

    test('Home at 390 px: the charts fit the width', async () => {
      const page = await ownerPage()
      await page.setViewportSize({ width: 390, height: 900 })
      await page.goto(`${origin}/dashboard/home`)
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
      assert.ok(
        await page.evaluate(() => document.documentElement.scrollWidth <= 390),
        'no sideways scrolling',
      )
    })

    test('the console Statistics: the same charts across organizations', async () => {
      const page = await operatorPage()
      await page.goto(`${origin}/dashboard/operator/statistics`)
      await page.getByRole('heading', { name: 'Statistics', level: 1 }).waitFor()
      await assertCharts(page, 4)
      await page.getByRole('img', { name: /75% of 4 settled deliveries succeeded/ }).waitFor()
      await assertAccessible(page, 'statistics with charts')
      // An operator has no environment: never a test-mode banner.
      assert.equal(await page.getByRole('status', { name: 'Test mode' }).count(), 0)
    })

    test('the environment picked on Orders is kept on Webhooks, Home and API keys, with a test-mode banner', async () => {
      // A profile of its own: what the other tests picked is not remembered in it.
      const page = await pageOf(owner)
      await page.goto(`${origin}/dashboard/orders`)
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
      // Webhooks opens on Test.
      await page.getByRole('radio', { name: 'Test', checked: true }).waitFor({ state: 'attached' })
      await banner.waitFor()
      await nav.getByRole('link', { name: 'Home' }).click()
      await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor()
      await banner.waitFor()
      await nav.getByRole('link', { name: 'API keys' }).click()
      await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor()
      // A new key is a test key.
      await page.getByRole('radio', { name: 'Test', checked: true }).waitFor({ state: 'attached' })
      await assertAccessible(page, 'API keys in test mode')

      // Remembered in this browser for the member: a new visit opens on Test.
      await page.goto(`${origin}/dashboard/webhooks`)
      // Webhooks still on Test.
      await page.getByRole('radio', { name: 'Test', checked: true }).waitFor({ state: 'attached' })
      await banner.getByRole('button', { name: 'Switch to Live' }).click()
      await banner.waitFor({ state: 'detached' })
      // Back on Live.
      await page.getByRole('radio', { name: 'Live', checked: true }).waitFor({ state: 'attached' })
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
      // The other member opens on Live.
      await page.getByRole('radio', { name: 'Live', checked: true }).waitFor({ state: 'attached' })
      assert.equal(await banner.count(), 0)
    })
  })

  /**
   * Usage for billing: an operator opens Billing, picks the month, reads the
   * organization's row and the totals, and downloads the CSV; an owner reads
   * the organization's own Usage page; a developer and a viewer have no Usage
   * page.
   */
  describe('usage for billing', () => {
    let orgId: string
    const month = new Date().toISOString().slice(0, 7)

    before(async () => {
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

    test('an operator picks the month on Billing, reads the row and totals, and downloads the CSV', async () => {
      const page = await operatorPage()
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
      // The totals the service sums over every organization (test/modules/usage proves the sum).
      const totals = (await operator.client.call('GET', `/operator/usage?month=${month}`)).json().data.totals
      const total = table.locator('tfoot').getByRole('row')
      assert.deepEqual(await total.getByRole('cell').allInnerTexts(), [
        String(totals.orders),
        String(totals.items),
        String(totals.quantity),
        '',
      ])
      await assertAccessible(page, 'Billing')

      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: 'Download CSV' }).click(),
      ])
      assert.equal(download.suggestedFilename(), `usage-${month}.csv`)
      // The browser is the run's (connected to, not launched): its download is read as a stream.
      const csv = await text(await download.createReadStream())
      // The usage CSV of the month (test/modules/usage proves its lines).
      assert.equal(
        csv.split('\r\n')[0],
        'month,organization_id,organization,line,product_id,sku,product,orders,items,quantity',
      )
      assert.ok(csv.includes(`${month},${orgId},Usage Prints,organization,,,,2,3,6\r\n`), csv)
    })

    test('an owner reads the Usage page; a developer and a viewer have none', async () => {
      const page = await pageOf(await memberOf(t, orgId, 'owner'))
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

      for (const role of ['developer', 'viewer'] as const) {
        const p = await pageOf(await memberOf(t, orgId, role))
        await p.goto(`${origin}/dashboard/usage`)
        // Sent to Home, with no Usage in the navigation.
        await p.getByRole('heading', { name: 'Home', level: 1 }).waitFor()
        const nav = p.getByRole('navigation', { name: 'Dashboard' })
        assert.equal(await nav.getByRole('link', { name: 'Usage' }).count(), 0, role)
        assert.ok((await nav.getByRole('link').allInnerTexts()).includes('Products'))
      }
    })
  })

  /**
   * Both audit logs as people read them at 1280 px: each entry a sentence,
   * ids shortened with a button that copies them, no row taller than a few
   * lines, filters by action, actor and day, and the CSV of what the filter
   * shows; the header searches, by keyboard.
   */
  describe('the audit logs', () => {
    let page: Page
    let owner: Awaited<ReturnType<typeof memberOf>>
    let keyPrefix: string
    let orgId: string

    before(async () => {
      orgId = (await t.createOrganization('Readable Prints')).id
      owner = await memberOf(t, orgId, 'owner')
      const key = await owner.client.call('POST', '/api-keys', {
        environment: 'live',
        scopes: ['orders:read', 'orders:write'],
      })
      assert.equal(key.statusCode, 201, key.body)
      keyPrefix = key.json().data.api_key.key_prefix
      const rule = await owner.client.call('POST', '/automation/rules', {
        name: 'Large mugs',
        actions: [{ type: 'tag', value: 'large' }],
      })
      assert.equal(rule.statusCode, 201, rule.body)
      const order = await createOrder(
        t,
        key.json().data.key,
        orderBody({ external_order_id: 'SHOP-1', items: [{ sku: 'MUG', name: 'Mug', quantity: 2 }] }),
      )
      const shown = (await owner.client.call('GET', `/orders/${order.id}`)).json().data.order
      const changed = await owner.client.call('POST', `/orders/${order.id}/changes`, {
        expected_updated_at: shown.updated_at,
        items: [{ id: shown.items[0].id, quantity: 5 }],
      })
      assert.equal(changed.statusCode, 200, changed.body)
      // The platform log: an operator's work across organizations, ids and all.
      for (const name of ['North Mugs', 'South Posters']) {
        const created = await operator.client.call('POST', '/operator/organizations', { name })
        assert.equal(created.statusCode, 201, created.body)
      }
      const view = (await t.admin('GET', `/admin/v1/orders/${order.id}`)).json().data.order
      const started = await t.admin(
        'POST',
        `/admin/v1/production-orders/${view.production_order.id}/status`,
        {
          status: 'in_progress',
        },
      )
      assert.equal(started.statusCode, 200, started.body)
      if (SHOTS) mkdirSync('docs/images/changes', { recursive: true })
    })
    const shoot = async (name: string) => {
      if (SHOTS) await page.screenshot({ path: `docs/images/changes/${name}-${SHOTS}.png`, fullPage: true })
    }

    test("the organization's log: sentences, filters, and the filtered CSV", async () => {
      page = await pageOf(owner)
      await page.goto(`${origin}/dashboard/audit-log`)
      await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor()
      const log = page.getByRole('table', { name: /audit log, newest first/ })
      await log
        .getByText(`${owner.email} created live key ${keyPrefix}… with orders:read, orders:write`)
        .waitFor()
      await shoot('audit-log')
      await log.getByText(`${owner.email} created automation rule ‘Large mugs’`).waitFor()
      await log.getByText(`${owner.email} changed order SHOP-1: quantity of item 1 2 → 5`).waitFor()
      await log.getByText('operator token created the organization ‘Readable Prints’').waitFor()
      assert.equal(await log.getByText(/\{"|key_id:/).count(), 0, 'no raw details')
      // The order's id is shortened, its button copies the whole.
      const copy = log.getByRole('button', { name: /^Copy id [0-9a-f-]{36}$/ }).first()
      await copy.waitFor()
      assert.ok(
        !(await log.textContent())!.match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-/),
        'no whole UUID in the text',
      )
      await assertAccessible(page, 'Audit log')
      const width = await page.evaluate(() => document.documentElement.scrollWidth)
      assert.ok(width <= 1280, `the page is ${width} px wide`)

      const filters = page.getByRole('form', { name: 'Filter the audit log' })
      await filters.getByRole('combobox', { name: 'Action' }).click()
      await page.getByRole('option', { name: 'API key created' }).click()
      await filters.getByRole('button', { name: 'Filter', exact: true }).click()
      await log
        .getByText('No entries match.')
        .or(log.getByText(/created live key/))
        .waitFor()
      await page.waitForFunction(() => document.querySelectorAll('table tbody tr').length === 1)
      await log.getByText(/created live key/).waitFor()
      const csv = filters.getByRole('link', { name: 'Download CSV (filtered)' })
      const href = await csv.getAttribute('href')
      // The link carries the filter (test/modules/audit proves the CSV holds the filtered log).
      assert.equal(href, '/dashboard/api/audit-log.csv?action=api_key.created')

      // Who and which days: the next day has nothing; today has the owner's three.
      // The form starts again from the cleared address: type only once it has (the button goes with the filters).
      const clear = filters.getByRole('button', { name: 'Clear filters' })
      await clear.click()
      await clear.waitFor({ state: 'detached' })
      await filters.getByLabel('Who').fill(owner.email)
      await filters.getByRole('button', { name: 'Filter', exact: true }).click()
      await page.waitForFunction(() => document.querySelectorAll('table tbody tr').length === 4)
      const tomorrow = new Date(Date.now() + 86_400_000)
      const day = `${tomorrow.getFullYear()}-${String(tomorrow.getMonth() + 1).padStart(2, '0')}-${String(tomorrow.getDate()).padStart(2, '0')}`
      await filters.getByLabel('From').fill(day)
      await filters.getByRole('button', { name: 'Filter', exact: true }).click()
      await log.getByText('No entries match.').waitFor()
    })

    test("the organization's log keeps its filters in the address: a shared link, a reload and Back show them", async () => {
      const rows = () => page.evaluate(() => document.querySelectorAll('table tbody tr').length)
      const filters = page.getByRole('form', { name: 'Filter the audit log' })
      const action = filters.getByRole('combobox', { name: 'Action' })
      // A link with a filter, as someone would share it.
      await page.goto(`${origin}/dashboard/audit-log?action=api_key.created`)
      await page.getByText(/created live key/).waitFor()
      await page.waitForFunction(() => document.querySelectorAll('table tbody tr').length === 1)
      assert.equal(await action.inputValue(), 'API key created')
      await page.reload()
      await page.getByText(/created live key/).waitFor()
      assert.equal(await rows(), 1, 'the reload keeps the filter')
      assert.equal(await action.inputValue(), 'API key created')
      // A second filter applied adds to the history; Back returns to the one before, form and rows.
      await filters.getByLabel('Who').fill('nobody@example.com')
      await filters.getByRole('button', { name: 'Filter', exact: true }).click()
      await page.getByText('No entries match.').waitFor()
      assert.equal(
        new URL(page.url()).search,
        `?actor=${encodeURIComponent('nobody@example.com')}&action=api_key.created`,
      )
      await page.goBack()
      await page.getByText(/created live key/).waitFor()
      assert.equal(await filters.getByLabel('Who').inputValue(), '')
      assert.equal(await action.inputValue(), 'API key created')
      assert.equal(new URL(page.url()).search, '?action=api_key.created')
    })

    test('Orders: the CSV of the current filters', async () => {
      await page.goto(`${origin}/dashboard/orders`)
      await page.getByRole('heading', { name: 'Orders', level: 1 }).waitFor()
      const filters = page.getByRole('form', { name: 'Filter orders' })
      await filters.getByLabel('Search').fill('shop-1')
      await filters.getByRole('button', { name: 'Search', exact: true }).click()
      const link = filters.getByRole('link', { name: 'Download CSV' })
      await page.waitForFunction(() =>
        document.querySelector('a[download^="orders-"]')?.getAttribute('href')?.includes('q=shop-1'),
      )
      const href = (await link.getAttribute('href'))!
      // The link carries the filters (dashboard.orders.test.ts proves what the CSV holds for them).
      assert.equal(href, '/dashboard/api/orders.csv?environment=live&q=shop-1')
      await assertAccessible(page, 'Orders')
    })

    test('the header search finds an order and a key; arrows and Enter open the order', async () => {
      const box = page
        .getByRole('search', { name: 'Find anything' })
        .getByLabel('Find an order, endpoint, key or request id')
      await box.fill(keyPrefix.slice(0, 12))
      const keys = page.getByRole('region', { name: 'API keys' })
      await keys.getByRole('link', { name: new RegExp(`^${keyPrefix}… · live`) }).waitFor()
      await box.fill('shop-1')
      const orders = page.getByRole('region', { name: 'Orders' })
      const order = orders.getByRole('link', { name: /^SHOP-1 · / })
      await order.waitFor()
      await assertAccessible(page, 'header search results')
      await box.press('ArrowDown')
      assert.equal(await order.evaluate((el) => el === document.activeElement), true)
      await page.keyboard.press('Enter')
      await page.waitForURL(/\/dashboard\/orders\/[0-9a-f-]{36}$/)
      await page.getByRole('heading', { name: /SHOP-1/, level: 1 }).waitFor()

      // The box shows the first few; "See all" opens Orders with the same search, box filled in.
      await box.fill('shop-1')
      await orders.getByRole('link', { name: 'See all live orders matching “shop-1”' }).click()
      await page.waitForURL(
        (url) => url.pathname === '/dashboard/orders' && url.search === '?environment=live&q=shop-1',
      )
      const list = page.getByRole('form', { name: 'Filter orders' })
      assert.equal(await list.getByLabel('Search').inputValue(), 'shop-1')
      await page
        .getByRole('link', { name: /^SHOP-1/ })
        .first()
        .waitFor()

      // At phone width the header (with the box) and the log's filters fit without sideways scrolling.
      await page.setViewportSize({ width: 390, height: 844 })
      await page.goto(`${origin}/dashboard/audit-log`)
      await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor()
      await page.getByRole('search', { name: 'Find anything' }).waitFor()
      const width = await page.evaluate(() => document.documentElement.scrollWidth)
      assert.ok(width <= 390, `the page is ${width} px wide at 390`)
      await page.setViewportSize({ width: 1280, height: 900 })
    })

    test('the platform log: compact, sentences, organization names, ids shortened', async () => {
      page = await operatorPage()
      await page.goto(`${origin}/dashboard/operator/audit-log`)
      await page.getByRole('heading', { name: 'Audit log (platform)', level: 1 }).waitFor()
      await page.getByRole('row').filter({ hasText: 'South Posters' }).first().waitFor()
      await shoot('platform-audit-log')
      const log = page.getByRole('table', { name: /Operators' actions/ })
      await log.getByText(/set the production status of order SHOP-1 from pending to in production/).waitFor()
      await log.getByText(`${operator.email} created the organization ‘North Mugs’`).waitFor()
      assert.ok(
        !(await log.textContent())!.match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-/),
        'no whole UUID in the text',
      )
      // No row wraps into a tower: every row at most three lines of text high.
      const heights = await log
        .locator('tbody tr')
        .evaluateAll((rows) => rows.map((r) => r.getBoundingClientRect().height))
      assert.ok(Math.max(...heights) < 80, `rows ${heights.join(', ')} px high`)
      const width = await page.evaluate(() => document.documentElement.scrollWidth)
      assert.ok(width <= 1280, `the page is ${width} px wide`)
      await assertAccessible(page, 'Audit log (platform)')

      const filters = page.getByRole('form', { name: 'Filter the audit log' })
      await filters.getByRole('combobox', { name: 'Action' }).fill('Organization created')
      await page.getByRole('option', { name: 'Organization created' }).click()
      await filters.getByRole('button', { name: 'Filter', exact: true }).click()
      // Every organization of the service (the operator token's, and North Mugs and South Posters).
      const organizations = (await t.db.selectFrom('organizations').select('id').execute()).length
      await page.waitForFunction(
        (n) => document.querySelectorAll('table tbody tr').length === n,
        organizations,
      )
      // The filter is in the address: a reload shows the same entries.
      assert.equal(new URL(page.url()).searchParams.get('action'), 'organization.created')
      await page.reload()
      await page.waitForFunction(
        (n) => document.querySelectorAll('table tbody tr').length === n,
        organizations,
      )
      assert.equal(
        await filters.getByRole('combobox', { name: 'Action' }).inputValue(),
        'Organization created',
      )
      const href = await filters.getByRole('link', { name: 'Download CSV (filtered)' }).getAttribute('href')
      // The link carries the filter (test/modules/audit proves the platform CSV's rows).
      assert.match(
        href!,
        /^\/dashboard\/api\/operator\/audit-log\.csv\?(.+&)?action=organization\.created(&|$)/,
      )
    })

    test("the console's header search finds across organizations: an organization, an order, a key", async () => {
      const box = page
        .getByRole('search', { name: 'Find anything' })
        .getByLabel('Find an organization, order, production order, endpoint or key')
      await box.fill('mugs')
      await page
        .getByRole('region', { name: 'Organizations' })
        .getByRole('link', { name: 'North Mugs' })
        .waitFor()
      await box.fill(keyPrefix.slice(0, 12))
      await page
        .getByRole('region', { name: 'API keys' })
        .getByRole('link', { name: new RegExp(`^${keyPrefix}… · Readable Prints · live`) })
        .waitFor()
      await box.fill('shop-1')
      const order = page
        .getByRole('region', { name: 'Orders' })
        .getByRole('link', { name: /^SHOP-1 · Readable Prints · / })
      await order.waitFor()
      await assertAccessible(page, "the console's search results")
      await box.press('ArrowDown')
      await page.keyboard.press('Enter')
      await page.waitForURL(/\/dashboard\/operator\/orders\/[0-9a-f-]{36}$/)
      await page.getByRole('heading', { name: /SHOP-1/, level: 1 }).waitFor()
    })
  })

  test('no page had a CSP violation', () => {
    pages.assertNoCspViolation(7)
  })
})
