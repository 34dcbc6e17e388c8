import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
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

/** Set to a name (before, after) to save the pages as docs/images/changes/audit-log*-<name>.png. */
const SHOTS = process.env.AUDIT_LOG_SHOTS

/**
 * Both audit logs as people read them at 1280 px: each entry a sentence, ids
 * shortened with a button that copies them, no row taller than a few lines,
 * filters by action, actor and day, and the CSV of what the filter shows.
 */
describe('the audit logs in a browser', { skip: browserSkip, timeout: 300_000, concurrency: false }, () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  let page: Page
  let seen: Awaited<ReturnType<typeof watchPage>>
  let owner: Awaited<ReturnType<typeof memberOf>>
  let operator: Awaited<ReturnType<typeof operatorOf>>
  let keyPrefix: string
  let orgId: string

  before(async () => {
    ;({ t, origin, browser } = await startBrowserApp())
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
    operator = await operatorOf(t)
    for (const name of ['North Mugs', 'South Posters']) {
      const created = await operator.client.call('POST', '/operator/organizations', { name })
      assert.equal(created.statusCode, 201, created.body)
    }
    const view = (await t.admin('GET', `/admin/v1/orders/${order.id}`)).json().data.order
    const started = await t.admin('POST', `/admin/v1/production-orders/${view.production_order.id}/status`, {
      status: 'in_progress',
    })
    assert.equal(started.statusCode, 200, started.body)
    if (SHOTS) mkdirSync('docs/images/changes', { recursive: true })
  })
  after(() => closeAll(browser, t))

  const shoot = async (name: string) => {
    if (SHOTS) await page.screenshot({ path: `docs/images/changes/${name}-${SHOTS}.png`, fullPage: true })
  }

  test("the organization's log: sentences, filters, and the filtered CSV", async () => {
    page = await (await signedInContext(browser, owner.client, origin)).newPage()
    seen = await watchPage(page)
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
    assert.equal(href, '/dashboard/api/audit-log.csv?action=api_key.created')
    const body = await page.evaluate(async (url) => (await fetch(url)).text(), href!)
    const lines = body.trim().split('\r\n')
    assert.equal(lines.length, 2)
    assert.match(lines[1]!, /created live key/)

    // Who and which days: the next day has nothing; today has the owner's three.
    await filters.getByRole('button', { name: 'Clear filters' }).click()
    await filters.getByLabel('Who').fill(owner.email)
    await filters.getByRole('button', { name: 'Filter', exact: true }).click()
    await page.waitForFunction(() => document.querySelectorAll('table tbody tr').length === 4)
    const tomorrow = new Date(Date.now() + 86_400_000)
    const day = `${tomorrow.getFullYear()}-${String(tomorrow.getMonth() + 1).padStart(2, '0')}-${String(tomorrow.getDate()).padStart(2, '0')}`
    await filters.getByLabel('From').fill(day)
    await filters.getByRole('button', { name: 'Filter', exact: true }).click()
    await log.getByText('No entries match.').waitFor()
    assert.deepEqual(seen.cspViolations, [])
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
    assert.equal(href, '/dashboard/api/orders.csv?environment=live&q=shop-1')
    const body = await page.evaluate(async (url) => (await fetch(url)).text(), href)
    const lines = body.trim().split('\r\n')
    assert.equal(lines.length, 2)
    assert.match(lines[1]!, /,SHOP-1,in_production,live,/)
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
    page = await (await signedInContext(browser, operator.client, origin)).newPage()
    seen = await watchPage(page)
    await page.goto(`${origin}/dashboard/operator/audit-log`)
    await page.getByRole('heading', { name: 'Audit log (platform)', level: 1 }).waitFor()
    await page.getByRole('row').filter({ hasText: 'South Posters' }).first().waitFor()
    await shoot('platform-audit-log')
    const log = page.getByRole('table', { name: /Operators' actions/ })
    await log.getByText(/set the production status of order SHOP-1 from pending to in_progress/).waitFor()
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
    // Readable Prints (the operator token's), North Mugs and South Posters.
    await page.waitForFunction(() => document.querySelectorAll('table tbody tr').length === 3)
    const href = await filters.getByRole('link', { name: 'Download CSV (filtered)' }).getAttribute('href')
    const body = await page.evaluate(async (url) => (await fetch(url)).text(), href!)
    assert.equal(body.trim().split('\r\n').length, 4)
    assert.match(body, /North Mugs/)
    assert.deepEqual(seen.cspViolations, [])
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
    assert.deepEqual(seen.cspViolations, [])
  })
})
