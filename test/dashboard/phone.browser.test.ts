import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core'
import { orderBody, type TestApp } from '../helpers/app.ts'
import { assertAccessible, browserSkip, closeAll, startBrowserApp } from '../helpers/browser.ts'
import { memberOf, operatorOf } from '../helpers/dashboard.ts'
import { loopbackResolver } from '../helpers/https-receiver.ts'
import { createOrder, png, uploadFile } from '../helpers/order-files.ts'
import { waitUntil } from '../helpers/wait.ts'
import { settleDelivery } from '../helpers/webhook-endpoints.ts'

/** An iPhone-sized screen: 390 × 844 CSS pixels, touch, the page's own viewport meta honoured. */
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true }

/** A context's requests in flight, and how long since one started or ended, from its events. */
function trackRequests(context: BrowserContext) {
  let inFlight = 0
  let changed = performance.now()
  const start = () => {
    inFlight++
    changed = performance.now()
  }
  const end = () => {
    inFlight--
    changed = performance.now()
  }
  context.on('request', start)
  context.on('requestfinished', end)
  context.on('requestfailed', end)
  return () => ({ inFlight, quietMs: Math.round(performance.now() - changed) })
}

/**
 * Resolves once the page has settled: no request in flight for 150 ms and no
 * loader shown (its data is on the page, its images loaded).
 */
async function settled(page: Page, requests: ReturnType<typeof trackRequests>) {
  let loaders = 0
  await waitUntil(
    async () => {
      if (requests().inFlight > 0 || requests().quietMs < 150) return false
      loaders = await page.locator('.mantine-Loader-root').count()
      return loaders === 0
    },
    'the page to settle (no request in flight for 150 ms, no loader)',
    { timeoutMs: 60_000, intervalMs: 50, details: () => JSON.stringify({ ...requests(), loaders }) },
  )
}

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
 * and creation time in Orders; an order's deliveries on its timeline; a
 * request's status and key in Requests), the
 * menu opens from the burger, and axe finds nothing serious.
 */
describe('every page on a phone', { skip: browserSkip, timeout: 600_000 }, () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  let member: BrowserContext
  let operator: BrowserContext
  const requests = new Map<BrowserContext, ReturnType<typeof trackRequests>>()
  const ids = { org: '', order: '', external: '', endpoint: '', production: '', request: '' }

  before(async () => {
    ;({ t, origin, browser } = await startBrowserApp({
      resolver: loopbackResolver,
      webhookAllowPrivateCidrs: ['127.0.0.0/8'],
    }))
    const org = await t.tenant('Phone Prints with a Long Organization Name')
    ids.org = org.orgId
    const endpoint = await t.api(org.liveKey, 'POST', '/v1/webhook-endpoints', {
      url: 'https://webhook.test/a-rather-long-path/for-webhooks/on-a-phone',
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
    // Each order's delivery answered 200 on its first attempt, recorded by the worker's own statement:
    // the pages show a settled state, whatever a busy machine would do to a live attempt's timeout.
    const deliveries = await t.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('endpoint_id', '=', ids.endpoint)
      .execute()
    assert.equal(deliveries.length, 4, 'one order.received delivery per order')
    for (const { id } of deliveries) await settleDelivery(t, id, 'succeeded', new Date())
    // The request that created the order (the log is written after the answer: now).
    await t.services.requests.recorder.flush()
    ids.request = (
      await t.db
        .selectFrom('api_requests')
        .select('id')
        .where('order_id', '=', ids.order)
        .where('status', '=', 201)
        .executeTakeFirstOrThrow()
    ).id
    const owner = await memberOf(t, org.orgId, 'owner')
    member = await browser.newContext(PHONE)
    requests.set(member, trackRequests(member))
    member.setDefaultTimeout(60_000)
    await member.addCookies([...owner.client.cookies].map(([name, value]) => ({ name, value, url: origin })))
    const op = await operatorOf(t)
    operator = await browser.newContext(PHONE)
    requests.set(operator, trackRequests(operator))
    operator.setDefaultTimeout(60_000)
    await operator.addCookies([...op.client.cookies].map(([name, value]) => ({ name, value, url: origin })))
  })
  after(() => closeAll(member, operator, browser, t))

  /** Waits for the locator to show within the screen's width (a menu sliding in gets there). */
  async function onScreen(locator: Locator, what: string) {
    await locator.waitFor()
    let box: { x: number; width: number } | null = null
    await waitUntil(
      async () => {
        box = await locator.boundingBox()
        return box !== null && box.x >= 0 && box.x + box.width <= PHONE.viewport.width + 1
      },
      `${what} within the screen's ${PHONE.viewport.width} px`,
      { timeoutMs: 30_000, intervalMs: 50, details: () => `last box: ${JSON.stringify(box)}` },
    )
  }

  /** Opens `path`, waits for its heading, and checks it fits the phone and passes axe. */
  async function fits(page: Page, path: string, heading: string | RegExp) {
    await page.goto(`${origin}/dashboard${path}`)
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor()
    await settled(page, requests.get(page.context())!)
    if (process.env.PHONE_SHOTS) {
      await page.screenshot({
        path: `${process.env.PHONE_SHOTS}/${path.replace(/[^a-z]+/g, '-')}.png`,
        fullPage: true,
      })
    }
    assert.deepEqual(await sideways(page), [], `${path}: sideways`)
    await assertAccessible(page, `${path} on a phone`)
  }

  interface PhonePage {
    path: string
    heading: string | RegExp
    /** What the page must show on a phone, beyond fitting it. */
    shows?: (page: Page) => Promise<void>
  }

  /** An order's timeline: each event a card, with its webhook deliveries readable (status, endpoint, attempts). */
  async function deliveriesOnTimeline(page: Page) {
    const event = page
      .getByRole('list', { name: 'Events of the order and their webhook deliveries' })
      .getByRole('listitem')
      .filter({ hasText: 'order.received' })
    await onScreen(event.getByText('succeeded', { exact: true }), 'the delivery status')
    await onScreen(event.getByText(/for-webhooks\/on-a-phone$/), 'the endpoint URL')
    await onScreen(event.getByText('1 attempt, HTTP 200'), 'the attempts')
  }

  /** The item's image file shown as a thumbnail (its bytes reached through the page's own route). */
  async function previewShown(page: Page) {
    const preview = page.getByRole('img', { name: 'Preview of front-design-final-version.png' })
    await preview.scrollIntoViewIfNeeded()
    await onScreen(preview, 'the preview')
    let state = ''
    await waitUntil(
      async () => {
        state = await preview.evaluate(
          (img: HTMLImageElement) => `complete ${img.complete}, ${img.naturalWidth} px`,
        )
        return state.startsWith('complete true') && !state.endsWith(' 0 px')
      },
      'the preview loaded',
      { timeoutMs: 30_000, intervalMs: 50, details: () => state },
    )
  }

  let memberPage: Page
  let operatorPage: Page
  const memberPages: PhonePage[] = [
    { path: '/home', heading: 'Home' },
    {
      path: '/orders',
      heading: 'Orders',
      // Each order a card with every column's value: the long email, the total, the creation time.
      shows: async (page) => {
        const card = page
          .getByRole('list', { name: 'Live orders, newest first' })
          .getByRole('listitem')
          .filter({ hasText: ids.external })
        await onScreen(card.getByRole('link', { name: ids.external }), 'the order link')
        await onScreen(card.getByText('maximiliane.mustermann@long-domain.example'), 'the email')
        await onScreen(card.getByText('1,234.50'), 'the total')
        await onScreen(card.locator('time'), 'the creation time')
        for (const label of ['Status', 'Customer', 'Items', 'Quantity', 'Total', 'Created']) {
          await onScreen(card.getByText(label, { exact: true }), `the label ${label}`)
        }
      },
    },
    {
      path: '/orders/:order',
      heading: /EXT-/,
      shows: async (page) => {
        await previewShown(page)
        await deliveriesOnTimeline(page)
      },
    },
    { path: '/api-keys', heading: 'API keys' },
    { path: '/webhooks', heading: 'Webhooks' },
    { path: '/webhooks/:endpoint', heading: /Shop backend|webhook/i },
    {
      path: '/requests',
      heading: 'Requests',
      // Each request a card: the method and path (a link), the status, the key.
      shows: async (page) => {
        const card = page
          .getByRole('list', { name: 'Live requests, newest first' })
          .getByRole('listitem')
          .filter({ hasText: 'POST /v1/orders' })
          .first()
        await onScreen(card.getByRole('link', { name: 'POST /v1/orders' }), 'the request link')
        await onScreen(card.getByText('201', { exact: true }), 'the status')
        await onScreen(card.getByText(/^svc_live_/), 'the key')
      },
    },
    {
      path: '/requests/:request',
      heading: 'POST /v1/orders',
      // The body and the answer one above the other, the body within the screen.
      shows: async (page) => {
        await onScreen(page.getByRole('region', { name: 'Request body' }), 'the request body')
        await onScreen(page.getByRole('region', { name: 'Answer' }), 'the answer')
      },
    },
    { path: '/products', heading: 'Products' },
    { path: '/automation', heading: 'Automation' },
    { path: '/usage', heading: 'Usage' },
    { path: '/members', heading: 'Members' },
    { path: '/audit-log', heading: 'Audit log' },
    { path: '/account', heading: 'Account' },
  ]
  const consolePages: PhonePage[] = [
    { path: '/operator/organizations', heading: 'Organizations' },
    { path: '/operator/organizations/:org', heading: /Phone Prints/ },
    { path: '/operator/production', heading: 'Production' },
    { path: '/operator/production/:production', heading: /EXT-/ },
    { path: '/operator/orders/:order', heading: /EXT-/, shows: previewShown },
    { path: '/operator/shop-orders', heading: 'Shop orders' },
    { path: '/operator/statistics', heading: 'Statistics' },
    { path: '/operator/billing', heading: 'Billing' },
    { path: '/operator/operators', heading: 'Operators' },
    { path: '/operator/audit-log', heading: /Audit log/ },
    { path: '/account', heading: 'Account' },
  ]
  const path = (pattern: string) => pattern.replace(/:(\w+)/, (_, id: keyof typeof ids) => ids[id])

  /**
   * The lists with more than three filters: on a phone the filters fold behind
   * one Filters button (saying how many are set), so that the first screen
   * shows the list's first row, not the filters. Checked on the page as
   * opened by the page's own test.
   */
  const foldedLists: { path: string; list: RegExp | null; console?: boolean }[] = [
    { path: '/orders', list: /^Live orders, newest first$/ },
    { path: '/requests', list: /^Live requests, newest first$/ },
    { path: '/audit-log', list: /audit log, newest first$/ },
    // The delivery log is below the endpoint's settings: its filters fold, its rows come later.
    { path: '/webhooks/:endpoint', list: null },
    { path: '/operator/production', list: /^Live orders/, console: true },
    { path: '/operator/audit-log', list: /^Operators' actions/, console: true },
  ]
  const foldedOn = (pattern: string, inConsole: boolean) =>
    foldedLists.find((f) => f.path === pattern && Boolean(f.console) === inConsole)

  async function foldsItsFilters(page: Page, list: RegExp | null) {
    const button = page.getByRole('button', { name: 'Filters', exact: true })
    await onScreen(button, 'the Filters button')
    assert.equal(await button.getAttribute('aria-expanded'), 'false')
    if (list) {
      const row = page.getByRole('list', { name: list }).getByRole('listitem').first()
      await row.waitFor()
      const box = await row.boundingBox()
      assert.ok(
        box && box.y + 40 <= PHONE.viewport.height,
        `the first row at ${JSON.stringify(box)}, the screen ${PHONE.viewport.height} px high`,
      )
    }
  }

  const folds = (f: { list: RegExp | null } | undefined) =>
    f
      ? `, its filters folded behind a Filters button${f.list ? ', its first row on the first screen' : ''}`
      : ''
  for (const { path: pattern, heading, shows } of memberPages) {
    const folded = foldedOn(pattern, false)
    test(`member: ${pattern}${folds(folded)}`, async () => {
      memberPage ??= await member.newPage()
      await fits(memberPage, path(pattern), heading)
      if (folded) await foldsItsFilters(memberPage, folded.list)
      await shows?.(memberPage)
    })
  }
  for (const { path: pattern, heading, shows } of consolePages) {
    const folded = foldedOn(pattern, true)
    test(`console: ${pattern}${folds(folded)}`, async () => {
      operatorPage ??= await operator.newPage()
      await fits(operatorPage, path(pattern), heading)
      if (folded) await foldsItsFilters(operatorPage, folded.list)
      await shows?.(operatorPage)
    })
  }

  test("member: Orders' Filters button counts the filters set in the address, and opens them", async () => {
    memberPage ??= await member.newPage()
    const page = memberPage
    await page.goto(`${origin}/dashboard/orders?status=pending&priority=rush`)
    await page.getByRole('heading', { name: 'Orders', level: 1 }).waitFor()
    const button = page.getByRole('button', { name: 'Filters (2)', exact: true })
    await onScreen(button, 'the Filters (2) button')
    const status = page.getByRole('combobox', { name: 'Status' })
    assert.equal(await status.isVisible(), false, 'folded')
    await button.click()
    await onScreen(status, 'the Status filter')
    assert.equal(await status.inputValue(), 'pending')
    assert.equal(await page.getByRole('combobox', { name: 'Priority' }).inputValue(), 'rush')
    await page.getByText('No live orders match.').waitFor()
    await assertAccessible(page, 'Orders with its filters open on a phone')
  })

  test('a deep link (a full page load of a lazy page) logs no HydrateFallback warning', async () => {
    const page = await member.newPage()
    const messages: string[] = []
    page.on('console', (m) => messages.push(`${m.type()}: ${m.text()}`))
    try {
      await page.goto(`${origin}/dashboard/orders/${ids.order}`)
      await page.getByRole('heading', { name: new RegExp(ids.external), level: 1 }).waitFor()
      await page.reload()
      await page.getByRole('heading', { name: new RegExp(ids.external), level: 1 }).waitFor()
      assert.deepEqual(
        messages.filter((m) => m.includes('HydrateFallback')),
        [],
      )
    } finally {
      await page.close()
    }
  })

  test("/docs' menu fits the phone: no link's right edge past the screen, on the reference and on a guide", async () => {
    const page = await member.newPage()
    try {
      for (const path of ['/docs', '/docs/guides/introduction']) {
        await page.goto(`${origin}${path}`)
        const menu = page.getByRole('navigation', { name: 'Documentation' })
        await menu.getByRole('link', { name: 'Error codes' }).waitFor()
        // The reference lays out its last parts after the menu: wait for the error codes' table.
        if (path === '/docs') await page.getByText('invalid_api_key').first().waitFor()
        const past = await menu.evaluate(
          (nav, screen) =>
            [nav.closest('header') ?? nav, ...nav.querySelectorAll('*')]
              .map((el) => ({ el, right: el.getBoundingClientRect().right }))
              .filter(({ right }) => right > screen)
              .map(({ el, right }) => `${el.textContent?.trim() || el.tagName} (${right})`),
          PHONE.viewport.width,
        )
        assert.deepEqual(past, [], `${path}: past the ${PHONE.viewport.width} px screen`)
        // Nothing widens the page past the screen either (a wide page would be zoomed out to fit).
        const width = await page.evaluate(() => document.documentElement.scrollWidth)
        assert.ok(width <= PHONE.viewport.width, `${path} is ${width} px wide`)
      }
    } finally {
      await page.close()
    }
  })

  test('the menu: the burger opens the sections, the organization, the member and Sign out', async () => {
    memberPage ??= await member.newPage()
    const page = memberPage
    await page.goto(`${origin}/dashboard/home`)
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor()
    const menu = page.getByRole('navigation', { name: 'Dashboard' })
    assert.equal(await menu.getByRole('link', { name: 'Orders' }).isVisible(), false)
    await onScreen(page.getByRole('search', { name: 'Find anything' }), 'the search box')
    await page.getByRole('button', { name: 'Menu' }).click()
    await onScreen(menu.getByText('Phone Prints with a Long Organization Name'), 'the organization')
    await onScreen(menu.getByRole('button', { name: 'Sign out' }), 'Sign out')
    await assertAccessible(page, 'the open menu on a phone')
    await menu.getByRole('link', { name: 'Orders' }).click()
    await page.getByRole('heading', { name: 'Orders', level: 1 }).waitFor()
    // Choosing a section closes the menu.
    await menu.getByRole('link', { name: 'Orders' }).waitFor({ state: 'hidden' })
  })
})
