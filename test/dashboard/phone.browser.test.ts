import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { orderBody, type TestApp } from '../helpers/app.ts'
import { assertAccessible, browserSkip, closeAll, startBrowserApp } from '../helpers/browser.ts'
import { memberOf, operatorOf } from '../helpers/dashboard.ts'
import { startReceiver } from '../helpers/https-receiver.ts'
import { createOrder, png, uploadFile } from '../helpers/order-files.ts'
import { waitUntil } from '../helpers/wait.ts'
import { resolverWithWrongName } from '../helpers/webhook-targets.ts'

/** An iPhone-sized screen: 390 × 844 CSS pixels, touch, the page's own viewport meta honoured. */
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true }

/**
 * What sticks out sideways on the page as it stands: the document wider than
 * the screen, or a region that scrolls sideways (a table wider than its
 * container). Each as `tag.class (scroll width > client width)`.
 */
function sideways(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = []
    const root = document.documentElement
    if (root.scrollWidth > window.innerWidth)
      found.push(`document (${root.scrollWidth} > ${window.innerWidth})`)
    for (const el of document.querySelectorAll<HTMLElement>('body *')) {
      if (el.scrollWidth <= el.clientWidth + 1 || el.clientWidth === 0) continue
      const overflow = getComputedStyle(el).overflowX
      if (overflow !== 'auto' && overflow !== 'scroll') continue
      const label = el.getAttribute('aria-label') ?? el.className.toString().split(' ')[0] ?? ''
      found.push(`${el.tagName.toLowerCase()}.${label} (${el.scrollWidth} > ${el.clientWidth})`)
    }
    return found
  })
}

/**
 * Every page of the dashboard and of the operator's console on a phone, in
 * headless Chromium at 390 × 844: nothing needs sideways scrolling, tables are
 * stacked rows with the same information (an order's customer email, total
 * and creation time in Orders; an order's deliveries on its timeline), the
 * menu opens from the burger, and axe finds nothing serious.
 */
describe('every page on a phone', { skip: browserSkip, timeout: 600_000 }, () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  let member: BrowserContext
  let operator: BrowserContext
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  const ids = { org: '', order: '', external: '', endpoint: '', production: '' }

  before(async () => {
    ;({ t, origin, browser } = await startBrowserApp({
      resolver: resolverWithWrongName,
      webhookAllowPrivateCidrs: ['127.0.0.0/8'],
    }))
    const org = await t.tenant('Phone Prints with a Long Organization Name')
    ids.org = org.orgId
    receiver = await startReceiver()
    await t.startDispatcher({ ca: receiver.ca })
    const endpoint = await t.api(org.liveKey, 'POST', '/v1/webhook-endpoints', {
      url: receiver.url('/a-rather-long-path/for-webhooks/on-a-phone'),
      description: 'Shop backend',
    })
    assert.equal(endpoint.statusCode, 201, endpoint.body)
    ids.endpoint = endpoint.json().data.endpoint.id
    const upload = await uploadFile(t, org.liveKey, png(), 'front-design-final-version.png')
    const body = orderBody({
      customer: {
        name: 'Maximiliane Mustermann-Longname',
        email: 'maximiliane.mustermann@long-domain.example',
      },
      currency: 'EUR',
      total_amount: 1234.5,
      items: [
        {
          sku: 'MUG-11OZ-WHITE-PERSONALIZED',
          name: 'Mug 11 oz, white, with a name',
          quantity: 3,
          price: 12.5,
          personalization: { name: 'Maximiliane', message: 'Happy birthday to the best aunt in the world' },
          files: [{ upload_id: upload, role: 'front' }],
        },
      ],
    })
    ids.external = body.external_order_id
    ids.order = (await createOrder(t, org.liveKey, body)).id
    for (let n = 0; n < 3; n++) await createOrder(t, org.liveKey, orderBody())
    const view = await t.admin('GET', `/admin/v1/orders/${ids.order}`)
    ids.production = view.json().data.order.production_order.id
    await waitUntil(() => receiver.received.length >= 4, 'the order.created deliveries')

    const owner = await memberOf(t, org.orgId, 'owner')
    member = await browser.newContext(PHONE)
    member.setDefaultTimeout(60_000)
    await member.addCookies([...owner.client.cookies].map(([name, value]) => ({ name, value, url: origin })))
    const op = await operatorOf(t)
    operator = await browser.newContext(PHONE)
    operator.setDefaultTimeout(60_000)
    await operator.addCookies([...op.client.cookies].map(([name, value]) => ({ name, value, url: origin })))
  })
  after(() => closeAll(member, operator, browser, receiver, t))

  /** Opens `path`, waits for its heading, and checks it fits the phone and passes axe. */
  async function fits(page: Page, path: string, heading: string | RegExp) {
    await page.goto(`${origin}/dashboard${path}`)
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor()
    await page.waitForLoadState('networkidle')
    if (process.env.PHONE_SHOTS) {
      await page.screenshot({
        path: `${process.env.PHONE_SHOTS}/${path.replace(/[^a-z]+/g, '-')}.png`,
        fullPage: true,
      })
    }
    assert.deepEqual(await sideways(page), [], `${path}: sideways`)
    await assertAccessible(page, `${path} on a phone`)
  }

  let memberPage: Page
  let operatorPage: Page
  const memberPages: [string, string | RegExp][] = [
    ['/home', 'Home'],
    ['/orders', 'Orders'],
    ['/orders/:order', /EXT-/],
    ['/api-keys', 'API keys'],
    ['/webhooks', 'Webhooks'],
    ['/webhooks/:endpoint', /Shop backend|webhook/i],
    ['/products', 'Products'],
    ['/automation', 'Automation'],
    ['/usage', 'Usage'],
    ['/members', 'Members'],
    ['/audit-log', 'Audit log'],
    ['/account', 'Account'],
  ]
  const consolePages: [string, string | RegExp][] = [
    ['/operator/organizations', 'Organizations'],
    ['/operator/organizations/:org', /Phone Prints/],
    ['/operator/production', 'Production'],
    ['/operator/production/:production', /EXT-/],
    ['/operator/orders/:order', /EXT-/],
    ['/operator/shop-orders', 'Shop orders'],
    ['/operator/statistics', 'Statistics'],
    ['/operator/billing', 'Billing'],
    ['/operator/operators', 'Operators'],
    ['/operator/audit-log', /Audit log/],
    ['/account', 'Account'],
  ]
  const path = (pattern: string) => pattern.replace(/:(\w+)/, (_, id: keyof typeof ids) => ids[id])

  for (const [pattern, heading] of memberPages) {
    test(`member: ${pattern}`, async () => {
      memberPage ??= await member.newPage()
      await fits(memberPage, path(pattern), heading)
    })
  }
  for (const [pattern, heading] of consolePages) {
    test(`console: ${pattern}`, async () => {
      operatorPage ??= await operator.newPage()
      await fits(operatorPage, path(pattern), heading)
    })
  }
})
