import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser, Locator, Page } from 'playwright-core'
import { orderBody, type TestApp } from '../helpers/app.ts'
import {
  assertAccessible,
  browserSkip,
  closeAll,
  signedInContext,
  startBrowserApp,
  tabStops,
  waitForCount,
  watchedPages,
} from '../helpers/browser.ts'
import { memberOf, operatorOf } from '../helpers/dashboard.ts'
import { loopbackResolver } from '../helpers/https-receiver.ts'
import { createOrder as createOrderView } from '../helpers/operator.ts'
import { createOrder, HOSTILE_SVG, MARKUP, PDF, png, uploadFile } from '../helpers/order-files.ts'
import { createEndpoint } from '../helpers/webhook-endpoints.ts'

type Member = Awaited<ReturnType<typeof memberOf>>

/**
 * Home, Orders, the order page and Products as members use them, in headless
 * Chromium, on one service: orders made through /v1 appear on Home and Orders
 * without a reload, filters live in the URL; the order page shows items,
 * personalization, thumbnails and links with markup as text, follows
 * production, and a developer changes and cancels an order and creates the
 * product of an unmatched sku; times, money and counts as an en-US reader in
 * Berlin reads them. Each part has its own organization (Home counts one
 * organization's orders); each member one signed-in browser profile. No page
 * has a CSP violation.
 */
describe('Home, Orders and the order page in a browser', { skip: browserSkip, timeout: 900_000 }, () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  const pages = watchedPages()

  before(async () => {
    ;({ t, origin, browser } = await startBrowserApp({
      resolver: loopbackResolver,
      webhookAllowPrivateCidrs: ['127.0.0.0/8'],
    }))
  })
  after(() => closeAll(pages, browser, t))

  /** The member's page (a profile of its own), watched for CSP violations and requests elsewhere. */
  const pageOf = async (member: { client: { cookies: Map<string, string> } }) =>
    pages.open(await signedInContext(browser, member.client, origin, 60_000))

  /**
   * Home and Orders: an order created through /v1 with a live key appears on
   * both without a reload (they poll), filters narrow the list and live in
   * the URL, test orders stay off Home, and both pages pass axe and are
   * reachable by keyboard.
   */
  describe('Home and Orders', () => {
    let tenant: Awaited<ReturnType<TestApp['tenant']>>
    let page: Page

    before(async () => {
      tenant = await t.tenant('Browser Prints')
      page = await pageOf(await memberOf(t, tenant.orgId, 'viewer'))
    })

    // Each figure is a card that links to the list it counts.
    const figure = (label: RegExp) => page.getByRole('link', { name: label })

    test('an order made through /v1 appears on Home without a reload; test orders never do', async () => {
      await page.goto(`${origin}/dashboard/`)
      await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor()
      await page.getByText(/UTC/).first().waitFor()
      const today = figure(/^Live orders today/)
      await today.getByText('0', { exact: true }).waitFor()
      await assertAccessible(page, 'home (empty)')

      await createOrderView(t, tenant.testKey, orderBody())
      await createOrderView(t, tenant.liveKey, orderBody())
      await today.getByText('1', { exact: true }).waitFor()
      const row = page.getByRole('row', { name: /^Today/ })
      // 1 order, pending 1, 2 item lines, quantity 3: the test order is not counted.
      await row.getByRole('cell').nth(5).getByText('0').waitFor()
      assert.deepEqual(await row.getByRole('cell').allInnerTexts(), ['1', '1', '0', '0', '0', '0', '2', '3'])
      await assertAccessible(page, 'home')

      const stops = await tabStops(page, 7)
      for (const name of ['Home', 'Orders'])
        assert.ok(stops.includes(name), `Tab reaches ${name}: ${stops.join(' | ')}`)
    })

    test('Orders: a new live order appears without a reload; environment and filters in the URL', async () => {
      await page.goto(`${origin}/dashboard/orders`)
      await page.getByRole('heading', { name: 'Orders', level: 1 }).waitFor()
      const table = page.getByRole('table', { name: 'Live orders, newest first' })
      await table.waitFor()
      const before = await table.getByRole('row').count()

      const body = {
        ...orderBody({ external_order_id: 'SHOP-7781' }),
        customer: { name: 'Grace Hopper', email: 'grace@example.com' },
      }
      const created = await createOrderView(t, tenant.liveKey, body)
      const link = table.getByRole('link', { name: 'SHOP-7781' })
      await link.waitFor()
      await waitForCount(table.getByRole('row'), before + 1, 'one row more')
      assert.equal(await link.getAttribute('href'), `/dashboard/orders/${created.order.id}`)
      await assertAccessible(page, 'orders')

      await page.getByLabel('Search').fill('grace@')
      await page.getByRole('button', { name: 'Search' }).click()
      await page.waitForURL(/q=grace%40/)
      await table.getByRole('row').nth(2).waitFor({ state: 'detached' })
      await waitForCount(table.getByRole('link'), 1, 'only the matching order listed')
      assert.deepEqual(await table.getByRole('link').allInnerTexts(), ['SHOP-7781'])

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

      const stops = await tabStops(page, 21)
      for (const name of ['Search', 'Status', 'Clear filters']) {
        assert.ok(
          stops.some((s) => s.startsWith(name)),
          `Tab reaches ${name}: ${stops.join(' | ')}`,
        )
      }
    })
  })

  /**
   * The order page and Products: a live order made through /v1 with an
   * image, a PDF, a hostile SVG and an unmatched sku shows its items,
   * personalization, thumbnails and links, with markup as text; a developer
   * creates the product from the unmatched sku and the item shows it linked;
   * a viewer gets no "Create product". axe passes on both pages.
   */
  describe('the order page and Products', () => {
    let org: Awaited<ReturnType<TestApp['tenant']>>
    let order: { id: string; external: string; files: Record<'png' | 'pdf' | 'svg', string> }
    let developer: Member
    let viewer: Member

    before(async () => {
      org = await t.tenant('Product Prints')
      await createEndpoint(t, org.liveKey, 'https://webhook.test/browser-orders')
      const files = {
        png: await uploadFile(t, org.liveKey, png([20, 110, 220]), `${MARKUP}.png`),
        pdf: await uploadFile(t, org.liveKey, PDF, 'proof.pdf'),
        svg: await uploadFile(t, org.liveKey, HOSTILE_SVG, 'logo.svg'),
      }
      const body = orderBody({
        items: [
          {
            sku: 'MUG-WHITE',
            name: 'Mug',
            quantity: 2,
            personalization: { text: MARKUP, color: 'blue' },
            files: [
              { upload_id: files.png, role: MARKUP },
              { upload_id: files.pdf, role: 'proof' },
              { upload_id: files.svg, role: 'logo' },
            ],
          },
          { sku: 'POSTER-A2', name: 'Poster', quantity: 1 },
        ],
      })
      const created = await createOrder(t, org.liveKey, body)
      assert.deepEqual(
        created.warnings.map((w) => w.value),
        ['MUG-WHITE', 'POSTER-A2'],
      )
      order = { id: created.id, external: body.external_order_id, files }
      developer = await memberOf(t, org.orgId, 'developer')
      viewer = await memberOf(t, org.orgId, 'viewer')
    })

    const orderUrl = () => `${origin}/dashboard/orders/${order.id}`
    const fileUrl = (uploadId: string) => `/dashboard/api/orders/${order.id}/files/${uploadId}`

    /** The image an <img> shows has loaded (a broken image has no natural width). */
    async function loadedImage(page: Page, name: string) {
      const img = page.getByRole('img', { name })
      await img.waitFor()
      await page.waitForFunction(
        (el) => (el as HTMLImageElement).complete && (el as HTMLImageElement).naturalWidth > 0,
        await img.elementHandle(),
      )
      return img
    }

    test('a developer sees the order, its files and timeline, creates the product, and the item shows it linked', async () => {
      const page = await pageOf(developer)
      await page.goto(orderUrl())
      await page.getByRole('heading', { name: `Order ${order.external}`, level: 1 }).waitFor()
      const item = page.getByRole('region', { name: 'Item 1: Mug' })
      await item.getByText('SKU: MUG-WHITE').waitFor()
      await item.getByText('Production: pending').waitFor()
      await item.getByText('No product for this SKU').waitFor()
      await page.getByRole('region', { name: 'Item 2: Poster' }).waitFor()

      // Markup in a personalization value and a file's role is text; its name was sanitized at upload.
      const fields = item.getByRole('table', { name: 'Personalization of item 1' })
      await fields.getByRole('cell', { name: MARKUP, exact: true }).waitFor()
      await fields.getByRole('cell', { name: 'blue', exact: true }).waitFor()
      await item.getByText(`Role: ${MARKUP}`).waitFor()
      const sanitized = '_img_src_x_onerror_alert_1__.png'
      await item.getByRole('link', { name: sanitized }).waitFor()
      assert.equal(await page.locator('img[src="x"], [onerror]').count(), 0)

      // The service's thumbnails (never the originals) as <img>, the PDF as a link; all through the session.
      const thumb = await loadedImage(page, `Preview of ${sanitized}`)
      assert.equal(await thumb.getAttribute('src'), `${fileUrl(order.files.png)}/thumbnail`)
      const svg = await loadedImage(page, 'Preview of logo.svg')
      assert.equal(await svg.evaluate((el) => el.tagName), 'IMG')
      assert.equal(await svg.getAttribute('src'), `${fileUrl(order.files.svg)}/thumbnail`)
      assert.equal(
        await page.locator('main svg rect[fill="#2f6fdf"], main object, main iframe, main embed').count(),
        0,
      )
      const pdf = item.getByRole('link', { name: 'proof.pdf' })
      assert.equal(await pdf.getAttribute('href'), fileUrl(order.files.pdf))
      assert.equal(await page.getByRole('img', { name: 'Preview of proof.pdf' }).count(), 0)

      const timeline = page.getByRole('table', { name: 'Events of the order and their webhook deliveries' })
      const received = timeline.getByRole('row').filter({ hasText: 'order.received' })
      await received.getByText('https://webhook.test/browser-orders').waitFor()
      await received.getByText('pending').waitFor()
      await received.getByText('0 attempts').waitFor()
      await assertAccessible(page, 'order page')
      const orderStops = await tabStops(page, 23)
      for (const name of [sanitized, 'logo.svg', 'proof.pdf', 'Create product for MUG-WHITE']) {
        assert.ok(orderStops.includes(name), `Tab reaches ${name}: ${orderStops.join(' | ')}`)
      }

      // The page follows production without a reload.
      const view = (await t.admin('GET', `/admin/v1/orders/${order.id}`)).json().data.order
      const moved = await t.admin('POST', `/admin/v1/production-orders/${view.production_order.id}/status`, {
        status: 'in_progress',
      })
      assert.equal(moved.statusCode, 200, moved.body)
      // In words, not the API's code: the item, the order's status badge and its production fact.
      await item.getByText('Production: in production').waitFor()
      const summary = page.getByRole('region', { name: 'Summary' })
      await summary.getByText('In production', { exact: true }).first().waitFor()
      for (const part of [summary, item]) {
        assert.doesNotMatch((await part.textContent())!, /in_progress|in_production/i, 'no status code')
      }
      await timeline.getByText('order.production_started').waitFor()

      // From the unmatched sku to a product; the item links.
      await item.getByRole('link', { name: 'Create product for MUG-WHITE' }).waitFor()
      await page
        .getByRole('navigation', { name: 'Dashboard' })
        .getByRole('link', { name: 'Products' })
        .click()
      await page.getByRole('heading', { name: 'Products', level: 1 }).waitFor()
      const unmatched = page.getByRole('table', { name: 'Unmatched SKUs' })
      const row = unmatched.getByRole('row').filter({ hasText: 'MUG-WHITE' })
      await row.waitFor()
      assert.deepEqual(
        await row
          .getByRole('cell')
          .allInnerTexts()
          .then((c) => c.slice(0, 3)),
        ['MUG-WHITE', '1', '1'],
      )
      await assertAccessible(page, 'products (developer)')
      const productStops = await tabStops(page, 26)
      for (const name of [
        'Products',
        'Add product',
        'Create product for MUG-WHITE',
        'Create product for POSTER-A2',
      ]) {
        assert.ok(productStops.includes(name), `Tab reaches ${name}: ${productStops.join(' | ')}`)
      }
      await row.getByRole('button', { name: 'Create product for MUG-WHITE' }).click()
      const form = page.getByRole('region', { name: 'Add a product' })
      assert.equal(await form.getByRole('textbox', { name: 'SKU' }).inputValue(), 'MUG-WHITE')
      await form.getByRole('textbox', { name: 'Name' }).fill('White mug 330 ml')
      await form.getByRole('button', { name: 'Add product' }).click()
      await page.getByRole('status').getByText('It linked 1 existing item').waitFor()
      await page
        .getByRole('table', { name: 'Products' })
        .getByRole('cell', { name: 'White mug 330 ml' })
        .waitFor()
      await unmatched.getByRole('row').filter({ hasText: 'MUG-WHITE' }).waitFor({ state: 'detached' })
      await unmatched.getByRole('cell', { name: 'POSTER-A2', exact: true }).waitFor()
      await assertAccessible(page, 'products after adding one')

      await page.goto(orderUrl())
      const linked = page.getByRole('region', { name: 'Item 1: Mug' })
      await linked.getByText('Linked to a product').waitFor()
      assert.equal(await linked.getByRole('link', { name: /^Create product/ }).count(), 0)
      await page
        .getByRole('region', { name: 'Item 2: Poster' })
        .getByText('No product for this SKU')
        .waitFor()
    })

    test('a viewer sees the order and the unmatched skus, without "Create product"', async () => {
      const page = await pageOf(viewer)
      await page.goto(orderUrl())
      const poster = page.getByRole('region', { name: 'Item 2: Poster' })
      await poster.getByText('No product for this SKU').waitFor()
      assert.equal(await page.getByRole('link', { name: /^Create product/ }).count(), 0)
      await page.goto(`${origin}/dashboard/products`)
      await page.getByRole('heading', { name: 'Products', level: 1 }).waitFor()
      await page
        .getByRole('table', { name: 'Unmatched SKUs' })
        .getByRole('cell', { name: 'POSTER-A2', exact: true })
        .waitFor()
      await page
        .getByRole('table', { name: 'Products' })
        .getByRole('cell', { name: 'MUG-WHITE', exact: true })
        .waitFor()
      assert.equal(await page.getByRole('button', { name: /Create product/ }).count(), 0)
      assert.equal(await page.getByRole('region', { name: 'Add a product' }).count(), 0)
      await assertAccessible(page, 'products (viewer)')
    })
  })

  /**
   * Changing an accepted order: a developer changes an item's quantity and
   * personalization, removes a file and adds one from the computer, sees the
   * change on the timeline; once production started the page says why items
   * no longer change, the operator changes the quantity from the console, and
   * the developer cancels the order; a viewer sees the order without any control.
   */
  describe('changing an order', () => {
    let org: Awaited<ReturnType<TestApp['tenant']>>
    let order: { id: string; external: string }
    let developer: Member
    let viewer: Member
    let operator: Awaited<ReturnType<typeof operatorOf>>

    before(async () => {
      org = await t.tenant('Browser Edit Prints')
      const front = await uploadFile(t, org.liveKey, png([200, 40, 40]), 'front.png')
      const proof = await uploadFile(t, org.liveKey, PDF, 'proof.pdf')
      const body = orderBody({
        items: [
          {
            sku: 'MUG-WHITE',
            name: 'Mug',
            quantity: 2,
            personalization: { text: 'Hello' },
            files: [{ upload_id: front, role: 'front' }, { upload_id: proof }],
          },
        ],
      })
      order = { id: (await createOrder(t, org.liveKey, body)).id, external: body.external_order_id }
      developer = await memberOf(t, org.orgId, 'developer')
      viewer = await memberOf(t, org.orgId, 'viewer')
      operator = await operatorOf(t)
    })

    test('the item dialog checks before sending, shows refusals beside their fields, and fits a phone', async () => {
      const page = await pageOf(developer)
      const changes: string[] = []
      page.on('request', (r) => {
        if (r.method() !== 'GET') changes.push(`${r.method()} ${new URL(r.url()).pathname}`)
      })
      await page.goto(`${origin}/dashboard/orders/${order.id}`)
      const item = page.getByRole('region', { name: 'Item 1: Mug' })
      await item.getByRole('button', { name: 'Change item 1' }).click()
      const dialog = page.getByRole('dialog', { name: 'Change item 1: Mug' })
      const quantity = dialog.getByRole('textbox', { name: 'Quantity' })
      const describedBy = async (field: typeof quantity) =>
        page.locator(
          `#${(await field.getAttribute('aria-describedby'))!.split(' ').find((id) => id.endsWith('-error'))}`,
        )

      // Quantity 0: refused by the page itself, beside the field, and nothing is sent.
      await quantity.fill('0')
      await dialog.getByRole('button', { name: 'Save item 1' }).click()
      assert.equal(await (await describedBy(quantity)).textContent(), 'Quantity must be at least 1')
      assert.equal(await quantity.getAttribute('aria-invalid'), 'true')
      assert.deepEqual(changes, [], 'no request for a quantity the page refuses')
      await assertAccessible(page, 'item dialog with a refused quantity')

      // What only the service checks (a NUL in a value) comes back beside that value, in the page's words.
      await quantity.fill('2')
      const value = dialog.getByRole('textbox', { name: 'Field 1 value' })
      await value.fill('Hel\u0000lo')
      await dialog.getByRole('button', { name: 'Save item 1' }).click()
      const refused = dialog.getByRole('alert').filter({ hasText: 'The change was refused' })
      await refused.getByText('One field needs a change: its message is beside it.').waitFor()
      assert.equal(changes.length, 1)
      assert.equal(
        await (await describedBy(value)).textContent(),
        'The value of “text” must not contain NUL characters or lone UTF-16 surrogates',
      )
      assert.equal(await quantity.getAttribute('aria-invalid'), null, 'the quantity is fine now')
      await refused.getByText('For support').click()
      await refused
        .getByText(/^validation_failed · invalid_format items\.0\.personalization\.text · request \S+$/)
        .waitFor()
      assert.doesNotMatch((await refused.textContent())!, /errors\[\]/, 'no API wording above the form')

      // On a phone the field rows wrap: each "Remove field" button is whole and inside the dialog.
      await page.setViewportSize({ width: 390, height: 844 })
      const remove = dialog.getByRole('button', { name: 'Remove field 1' })
      const fits = await remove.evaluate((b) => {
        const label = b.querySelector('.mantine-Button-label') ?? b
        const box = b.getBoundingClientRect()
        const inside = b.closest('.mantine-Modal-content')!.getBoundingClientRect()
        return label.scrollWidth <= label.clientWidth && box.left >= inside.left && box.right <= inside.right
      })
      assert.ok(fits, 'Remove field 1 is cut or outside the dialog at 390 px')
      await assertAccessible(page, 'item dialog at 390 px')
      await dialog.getByRole('button', { name: 'Close' }).click()
      await page.setViewportSize({ width: 1280, height: 900 })
      assert.equal(changes.length, 1, 'nothing more was sent')
    })

    test('a developer changes an item and its files, sees it on the timeline and cancels; a viewer sees no controls', async () => {
      const page = await pageOf(developer)
      await page.goto(`${origin}/dashboard/orders/${order.id}`)
      await page.getByRole('heading', { name: `Order ${order.external}`, level: 1 }).waitFor()
      const item = page.getByRole('region', { name: 'Item 1: Mug' })

      await item.getByRole('button', { name: 'Change item 1' }).click()
      const dialog = page.getByRole('dialog', { name: 'Change item 1: Mug' })
      await dialog.getByRole('textbox', { name: 'Quantity' }).fill('3')
      await dialog.getByRole('textbox', { name: 'Field 1 value' }).fill('Hello Jo')
      await dialog.getByRole('button', { name: 'Save item 1' }).click()
      await dialog.waitFor({ state: 'detached' })
      await item.getByText('Quantity: 3').waitFor()
      await item.getByRole('cell', { name: 'Hello Jo', exact: true }).waitFor()

      await item.getByRole('button', { name: 'Remove proof.pdf' }).click()
      await page
        .getByRole('dialog', { name: 'Remove proof.pdf?' })
        .getByRole('button', { name: 'Remove file' })
        .click()
      await item.getByRole('link', { name: 'proof.pdf' }).waitFor({ state: 'detached' })

      await item
        .getByLabel('File to add to item 1')
        .setInputFiles({ name: 'back.png', mimeType: 'image/png', buffer: png([20, 160, 60]) })
      await item.getByRole('textbox', { name: 'Role (optional)' }).fill('back')
      await item.getByRole('button', { name: 'Add file to item 1' }).click()
      await item.getByRole('link', { name: 'back.png' }).waitFor()
      await item.getByText('Role: back').waitFor()

      const timeline = page.getByRole('table', { name: 'Events of the order and their webhook deliveries' })
      await timeline
        .getByText(
          `${developer.email} changed order ${order.external}: quantity of item 1 2 \u2192 3; personalization of item 1`,
        )
        .waitFor()
      await timeline
        .getByText(`${developer.email} changed order ${order.external}: files of item 1`)
        .first()
        .waitFor()
      await timeline.getByText('order.updated').first().waitFor()
      await assertAccessible(page, 'order page with its controls')

      // Production starts: the page says why items no longer change; the operator still changes them.
      const view = (await t.admin('GET', `/admin/v1/orders/${order.id}`)).json().data.order
      const started = await t.admin(
        'POST',
        `/admin/v1/production-orders/${view.production_order.id}/status`,
        { status: 'in_progress' },
      )
      assert.equal(started.statusCode, 200, started.body)
      await page
        .getByText(
          /Production has started \(in_progress\): the customer and the items can no longer be changed here/,
        )
        .waitFor()
      assert.equal(await item.getByRole('button', { name: 'Change item 1' }).count(), 0)
      const console = await pageOf(operator)
      await console.goto(`${origin}/dashboard/operator/orders/${order.id}`)
      const consoleItem = console.getByRole('region', { name: 'Item 1: Mug' })
      await consoleItem.getByRole('button', { name: 'Change item 1' }).click()
      const consoleDialog = console.getByRole('dialog', { name: 'Change item 1: Mug' })
      await consoleDialog.getByRole('textbox', { name: 'Quantity' }).fill('4')
      await consoleDialog.getByRole('button', { name: 'Save item 1' }).click()
      await consoleItem.getByText('Quantity: 4').waitFor()
      await assertAccessible(console, 'console order page')
      // The production order page says of its Total what the order's page says: paid, items changed since.
      const shown = (await t.admin('GET', `/admin/v1/orders/${order.id}`)).json().data.order
      await console.goto(`${origin}/dashboard/operator/production/${shown.production_order.id}`)
      await console.getByText('paid by the customer; items changed since').waitFor()
      await console.getByText(/^Items now: /).waitFor()
      await item.getByText('Quantity: 4').waitFor()
      await timeline
        .getByText(
          `The operator ${operator.email} changed order ${order.external}: quantity of item 1 3 \u2192 4`,
        )
        .waitFor()

      await page.getByRole('button', { name: 'Cancel order' }).click()
      const cancel = page.getByRole('dialog', { name: `Cancel order ${order.external}?` })
      await cancel
        .getByText(
          'Production stops and the order and its unfinished items become cancelled. Your live webhook endpoints receive order.cancelled. You cannot undo this.',
        )
        .waitFor()
      const open = (await t.admin('GET', `/admin/v1/orders/${order.id}`)).json().data.order
      assert.equal(open.status, 'in_production', 'not cancelled by the first click')
      await cancel.getByRole('button', { name: 'Cancel the order' }).click()
      await timeline.getByText(`${developer.email} cancelled order ${order.external}`).waitFor()
      await timeline.getByText('order.cancelled').waitFor()
      await page.getByText('This order is cancelled: it can no longer be changed.').waitFor()
      assert.equal(await page.getByRole('button', { name: 'Change item 1' }).count(), 0)
      await item.getByRole('link', { name: 'front.png' }).waitFor()
      await item.getByRole('link', { name: 'back.png' }).waitFor()

      const viewing = await pageOf(viewer)
      await viewing.goto(`${origin}/dashboard/orders/${order.id}`)
      await viewing.getByRole('region', { name: 'Item 1: Mug' }).getByText('Quantity: 4').waitFor()
      await viewing
        .getByText(
          `${developer.email} changed order ${order.external}: quantity of item 1 2 \u2192 3; personalization of item 1`,
        )
        .waitFor()
      for (const name of [/^Change/, /^Cancel/, /^Remove/, /^Add file/]) {
        assert.equal(await viewing.getByRole('button', { name }).count(), 0, `no ${name} for a viewer`)
      }
    })
  })

  /**
   * Times, money and counts as a member reads them, in a browser set to en-US
   * in Berlin: the timeline and the audit log write each time to the second
   * with the zone; other times say how long ago, with the instant on hover
   * and for screen readers; totals and unit prices are in the order's
   * currency with its decimals; counts are grouped.
   */
  describe('times, money and counts', () => {
    /** The reader this part plays: an American locale, a Berlin clock. */
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

    let page: Page
    let euro: { id: string; external: string; created_at: string; ordered_at: string }
    let yen: string

    before(async () => {
      const org = await t.tenant('Formats Prints')
      const owner = await memberOf(t, org.orgId, 'owner')
      const threeHoursAgo = new Date(Date.now() - 3 * 3600_000 - 120_000).toISOString()
      const body = orderBody({
        total_amount: 1234.5,
        currency: 'EUR',
        ordered_at: threeHoursAgo,
        items: [{ sku: 'MUG-01', name: 'Mug', quantity: 1200, price: 29.5 }],
      })
      const created = (await createOrderView(t, org.liveKey, body)).order
      euro = {
        id: created.id,
        external: body.external_order_id,
        created_at: created.created_at,
        ordered_at: threeHoursAgo,
      }
      const yenBody = orderBody({
        total_amount: 5000,
        currency: 'JPY',
        items: [{ name: 'Card', quantity: 1 }],
      })
      await createOrderView(t, org.liveKey, yenBody)
      yen = yenBody.external_order_id

      const context = await browser.newContext({
        viewport: { width: 1280, height: 900 },
        locale: LOCALE,
        timezoneId: ZONE,
      })
      context.setDefaultTimeout(60_000)
      await context.addCookies(
        [...owner.client.cookies].map(([name, value]) => ({ name, value, url: origin })),
      )
      page = await pages.open(context)
    })

    /** A `<time>`'s visible text, its machine-readable instant and its hover text. */
    async function read(time: Locator) {
      return {
        text: plain(await time.textContent()),
        dateTime: await time.getAttribute('datetime'),
        title: plain(await time.getAttribute('title')),
      }
    }

    test("an order's timeline to the second with the zone, the order's times relative, money in its currency", async () => {
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
        /Central European (Standard|Summer) Time \((now|\d+ seconds? ago|\d+ minutes? ago)\)$/,
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
    })

    test('Orders lists totals in each currency and counts grouped; Home groups its counts', async () => {
      await page.goto(`${origin}/dashboard/orders`)
      const row = page.getByRole('row', { name: new RegExp(euro.external) })
      await row.getByRole('cell', { name: '1,234.50 EUR', exact: true }).waitFor()
      await row.getByRole('cell', { name: '1,200', exact: true }).waitFor()
      const created = await read(row.locator('time'))
      assert.equal(created.dateTime, euro.created_at)
      assert.match(created.text, /^(now|\d+ seconds? ago|\d+ minutes? ago) \(/)
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
    })

    test('the audit log writes when to the second with the zone', async () => {
      await page.goto(`${origin}/dashboard/audit-log`)
      const when = page.getByRole('main').locator('time').first()
      await when.waitFor()
      const shown = await read(when)
      assert.ok(shown.dateTime, 'a machine-readable instant')
      assert.equal(shown.text, plain(exact(shown.dateTime)))
      assert.match(shown.text, /\d{1,2}:\d{2}:\d{2} [AP]M GMT\+[12]$/)
      assert.ok(shown.title.startsWith(plain(spelled(shown.dateTime))), shown.title)
      await assertAccessible(page, 'audit log')
    })
  })

  /**
   * A customer's personal data, from their order's page: the owner finds them
   * (the order picked), sees what an erasure removes, is asked first, and the
   * order page says it was erased.
   */
  test('an owner erases a customer from their order’s page: found, asked first, erased, and the order says so', async () => {
    const tenant = await t.tenant('Erasing Prints')
    const owner = await memberOf(t, tenant.orgId, 'owner')
    const email = `ida.${Date.now()}@kunden.example`
    const body = { ...orderBody(), customer: { name: 'Ida Quennell', email } }
    const order = await createOrder(t, tenant.liveKey, body)
    await createOrder(t, tenant.liveKey, { ...orderBody(), customer: { name: 'Ida Quennell', email } })
    const page = await pageOf(owner)
    await page.goto(`${origin}/dashboard/orders/${order.id}`)
    await page.getByRole('link', { name: 'Export or erase this customer’s data' }).click()
    await page.getByRole('heading', { name: 'Personal data', level: 1 }).waitFor()
    const search = page.getByRole('form', { name: 'Find a customer' })
    await search.getByText(/With the 1 order picked/).waitFor()
    await search.getByLabel('E-mail').fill(email)
    await search.getByRole('button', { name: 'Find their data' }).click()
    await page.getByRole('heading', { name: '2 orders found' }).waitFor()
    await page.getByText(/2 live, 0 test; 0 finished/).waitFor()
    await assertAccessible(page, 'personal data: a customer found')

    await page.getByRole('radio', { name: 'Erase them from every order found' }).check()
    await page.getByRole('button', { name: 'Erase…' }).click()
    const dialog = page.getByRole('dialog', { name: 'Erase this customer’s personal data?' })
    await dialog
      .getByText(
        /This cannot be undone\..*personalization and file names of every order found.*no webhook is sent/,
      )
      .waitFor()
    await assertAccessible(page, 'personal data: asked first')
    await dialog.getByRole('button', { name: 'Erase from 2 orders' }).click()
    await page
      .getByRole('status')
      .filter({ hasText: /gone from 2 orders \(with the personalization of 2 orders\)/ })
      .waitFor()
    // Found again: the e-mail is gone, the picked order is there, erased.
    await page.getByRole('heading', { name: '1 order found' }).waitFor()
    await page.getByRole('cell', { name: 'erased' }).waitFor()

    await page.getByRole('link', { name: body.external_order_id }).click()
    await page.getByText('Personal data erased').waitFor()
    await page.getByText(/The customer’s name, e-mail and phone were erased/).waitFor()
  })

  test('no page had a CSP violation or loaded anything from elsewhere', () => {
    pages.assertNoCspViolation(9)
    pages.assertNothingFromElsewhere(origin)
  })
})
