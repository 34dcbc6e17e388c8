import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser, BrowserContext, Locator } from 'playwright-core'
import { orderBody, type TestApp } from '../helpers/app.ts'
import { assertAccessible, browserSkip, closeAll, startBrowserApp } from '../helpers/browser.ts'
import { memberOf } from '../helpers/dashboard.ts'
import { createOrder } from '../helpers/operator.ts'

/** The reader this test plays: an American locale, a Berlin clock. */
const LOCALE = 'en-US'
const ZONE = 'Europe/Berlin'

// What the page should write, formatted here the way the reader's browser does.
const exact = (iso: string) =>
  new Intl.DateTimeFormat(LOCALE, { dateStyle: 'medium', timeStyle: 'long', timeZone: ZONE }).format(
    new Date(iso),
  )
const spelled = (iso: string) =>
  new Intl.DateTimeFormat(LOCALE, { dateStyle: 'full', timeStyle: 'full', timeZone: ZONE }).format(
    new Date(iso),
  )
/** ICU puts narrow no-break spaces before AM/PM; compared as plain spaces. */
const plain = (text: string | null) => (text ?? '').replace(/\s+/g, ' ').trim()

/**
 * Times, money and counts as a member reads them, in headless Chromium set to
 * en-US in Berlin: the timeline and the audit log write each time to the
 * second with the zone; other times say how long ago, with the instant on
 * hover and for screen readers; totals and unit prices are in the order's
 * currency with its decimals; counts are grouped.
 */
describe('times, money and counts in a browser', { skip: browserSkip, timeout: 300_000 }, () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  let context: BrowserContext
  let euro: { id: string; external: string; created_at: string; ordered_at: string }
  let yen: string

  before(async () => {
    ;({ t, origin, browser } = await startBrowserApp())
    const org = await t.tenant('Formats Prints')
    const owner = await memberOf(t, org.orgId, 'owner')
    const threeHoursAgo = new Date(Date.now() - 3 * 3600_000 - 120_000).toISOString()
    const body = orderBody({
      total_amount: 1234.5,
      currency: 'EUR',
      ordered_at: threeHoursAgo,
      items: [{ sku: 'MUG-01', name: 'Mug', quantity: 1200, price: 29.5 }],
    })
    const created = (await createOrder(t, org.liveKey, body)).order
    euro = {
      id: created.id,
      external: body.external_order_id,
      created_at: created.created_at,
      ordered_at: threeHoursAgo,
    }
    const yenBody = orderBody({ total_amount: 5000, currency: 'JPY', items: [{ name: 'Card', quantity: 1 }] })
    await createOrder(t, org.liveKey, yenBody)
    yen = yenBody.external_order_id

    context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      locale: LOCALE,
      timezoneId: ZONE,
    })
    context.setDefaultTimeout(60_000)
    await context.addCookies([...owner.client.cookies].map(([name, value]) => ({ name, value, url: origin })))
  })
  after(() => closeAll(context, browser, t))

  /** A `<time>`'s visible text, its machine-readable instant and its hover text. */
  async function read(time: Locator) {
    return {
      text: plain(await time.textContent()),
      dateTime: await time.getAttribute('datetime'),
      title: plain(await time.getAttribute('title')),
    }
  }

  test("an order's timeline to the second with the zone, the order's times relative, money in its currency", async () => {
    const page = await context.newPage()
    await page.goto(`${origin}/dashboard/orders/${euro.id}`)
    await page.getByRole('heading', { name: `Order ${euro.external}`, level: 1 }).waitFor()

    const timeline = page.getByRole('table', { name: 'Events of the order and their webhook deliveries' })
    const received = timeline.getByRole('row', { name: /Order received/ }).locator('time')
    const shown = await read(received)
    assert.equal(shown.dateTime, euro.created_at)
    assert.equal(shown.text, plain(exact(euro.created_at)))
    assert.match(shown.text, /^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2}:\d{2} [AP]M GMT\+[12]$/)
    assert.ok(shown.title.startsWith(plain(spelled(euro.created_at))), shown.title)
    assert.match(
      shown.title,
      /Central European (Standard|Summer) Time \((now|\d+ seconds? ago|1 minute ago)\)$/,
    )

    // Ordered three hours ago: said so, with the instant on hover and in the text screen readers read.
    const ordered = page
      .locator('div')
      .filter({ has: page.getByText('Ordered', { exact: true }) })
      .last()
      .locator('time')
    const orderedShown = await read(ordered)
    assert.equal(orderedShown.dateTime, euro.ordered_at)
    assert.equal(orderedShown.title, plain(spelled(euro.ordered_at)))
    assert.equal(orderedShown.text, `3 hours ago (${plain(spelled(euro.ordered_at))})`)
    assert.equal(plain(await ordered.evaluate((el) => (el as HTMLElement).innerText)), orderedShown.text)

    const total = page
      .locator('div')
      .filter({ has: page.getByText('Total', { exact: true }) })
      .last()
    await total.getByText('1,234.50 EUR', { exact: true }).waitFor()
    const item = page.getByRole('region', { name: 'Item 1: Mug' })
    await item.getByText('Unit price: 29.50 EUR', { exact: true }).waitFor()
    await item.getByText('Quantity: 1,200', { exact: true }).waitFor()
    await assertAccessible(page, 'order page')
    await page.close()
  })

  test('Orders lists totals in each currency and counts grouped; Home groups its counts', async () => {
    const page = await context.newPage()
    await page.goto(`${origin}/dashboard/orders`)
    const row = page.getByRole('row', { name: new RegExp(euro.external) })
    await row.getByRole('cell', { name: '1,234.50 EUR', exact: true }).waitFor()
    await row.getByRole('cell', { name: '1,200', exact: true }).waitFor()
    const created = await read(row.locator('time'))
    assert.equal(created.dateTime, euro.created_at)
    assert.match(created.text, /^(now|\d+ seconds? ago|1 minute ago) \(/)
    assert.ok(created.text.endsWith(`(${plain(spelled(euro.created_at))})`), created.text)
    await page
      .getByRole('row', { name: new RegExp(yen) })
      .getByRole('cell', { name: '5,000 JPY', exact: true })
      .waitFor()
    await assertAccessible(page, 'orders')

    await page.goto(`${origin}/dashboard/`)
    const today = page.getByRole('row', { name: /^Today/ })
    await today.getByRole('cell', { name: '1,201', exact: true }).waitFor()
    assert.deepEqual(
      (await today.getByRole('cell').allTextContents()).map(plain),
      // Orders, pending, in production, completed, failed, cancelled, items, quantity.
      ['2', '2', '0', '0', '0', '0', '2', '1,201'],
    )
    await page.close()
  })

  test('the audit log writes when to the second with the zone', async () => {
    const page = await context.newPage()
    await page.goto(`${origin}/dashboard/audit-log`)
    const when = page.getByRole('main').locator('time').first()
    await when.waitFor()
    const shown = await read(when)
    assert.ok(shown.dateTime, 'a machine-readable instant')
    assert.equal(shown.text, plain(exact(shown.dateTime)))
    assert.match(shown.text, /\d{1,2}:\d{2}:\d{2} [AP]M GMT\+[12]$/)
    assert.ok(shown.title.startsWith(plain(spelled(shown.dateTime))), shown.title)
    await assertAccessible(page, 'audit log')
    await page.close()
  })
})
