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
import { loopbackResolver } from '../helpers/https-receiver.ts'
import { createOrder, HOSTILE_SVG, MARKUP, PDF, png, uploadFile } from '../helpers/order-files.ts'
import { createEndpoint } from '../helpers/webhook-endpoints.ts'

/**
 * The order page and Products in headless Chromium: a live order made
 * through /v1 with an image, a PDF, a hostile SVG and an unmatched sku shows
 * its items, personalization, thumbnails and links, with markup as text; a
 * developer creates the product from the unmatched sku and the item shows it
 * linked; a viewer gets no "Create product". axe passes on both pages.
 */
describe('the order page and Products in a browser', { skip: browserSkip, timeout: 600_000 }, () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  let org: Awaited<ReturnType<TestApp['tenant']>>
  let order: { id: string; external: string; files: Record<'png' | 'pdf' | 'svg', string> }

  before(async () => {
    ;({ t, origin, browser } = await startBrowserApp({
      resolver: loopbackResolver,
      webhookAllowPrivateCidrs: ['127.0.0.0/8'],
    }))
    org = await t.tenant('Browser Prints')
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
  })
  after(() => closeAll(browser, t))

  async function pageOf(role: 'developer' | 'viewer') {
    const member = await memberOf(t, org.orgId, role)
    const context = await signedInContext(browser, member.client, origin)
    const page = await context.newPage()
    return { page, seen: await watchPage(page) }
  }

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
    const { page, seen } = await pageOf('developer')
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

    // Images as thumbnails, the SVG only as an <img>, the PDF as a link; all through the session.
    const thumb = await loadedImage(page, `Preview of ${sanitized}`)
    assert.equal(await thumb.getAttribute('src'), fileUrl(order.files.png))
    const svg = await loadedImage(page, 'Preview of logo.svg')
    assert.equal(await svg.evaluate((el) => el.tagName), 'IMG')
    assert.equal(await svg.getAttribute('src'), fileUrl(order.files.svg))
    assert.equal(
      await page.locator('main svg rect[fill="#2f6fdf"], main object, main iframe, main embed').count(),
      0,
    )
    const pdf = item.getByRole('link', { name: 'proof.pdf' })
    assert.equal(await pdf.getAttribute('href'), fileUrl(order.files.pdf))
    assert.equal(await page.getByRole('img', { name: 'Preview of proof.pdf' }).count(), 0)
    const download = await page.request.get(`${origin}${fileUrl(order.files.pdf)}`)
    assert.equal(download.status(), 200)
    assert.equal(download.headers()['content-type'], 'application/pdf')
    assert.equal(download.headers()['content-disposition'], 'attachment; filename="proof.pdf"')
    assert.equal(download.headers()['x-content-type-options'], 'nosniff')

    const timeline = page.getByRole('table', { name: 'Events of the order and their webhook deliveries' })
    const received = timeline.getByRole('row').filter({ hasText: 'order.received' })
    await received.getByText('https://webhook.test/browser-orders').waitFor()
    await received.getByText('pending').waitFor()
    await received.getByText('0 attempts').waitFor()
    await assertAccessible(page, 'order page')
    const orderStops = await tabStops(page, 20)
    for (const name of [sanitized, 'logo.svg', 'proof.pdf', 'Create product for MUG-WHITE']) {
      assert.ok(orderStops.includes(name), `Tab reaches ${name}: ${orderStops.join(' | ')}`)
    }

    // The page follows production without a reload.
    const view = (await t.admin('GET', `/admin/v1/orders/${order.id}`)).json().data.order
    const moved = await t.admin('POST', `/admin/v1/production-orders/${view.production_order.id}/status`, {
      status: 'in_progress',
    })
    assert.equal(moved.statusCode, 200, moved.body)
    await item.getByText('Production: in_progress').waitFor({ timeout: 30_000 })
    await timeline.getByText('order.production_started').waitFor({ timeout: 30_000 })

    // From the unmatched sku to a product; the item links.
    await item.getByRole('link', { name: 'Create product for MUG-WHITE' }).waitFor()
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Products' }).click()
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
    const productStops = await tabStops(page, 24)
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
    await page.getByRole('region', { name: 'Item 2: Poster' }).getByText('No product for this SKU').waitFor()

    assert.deepEqual(seen.cspViolations, [])
    assert.deepEqual(
      seen.requests.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:')),
      [],
    )
    await page.context().close()
  })

  test('a viewer sees the order and the unmatched skus, without "Create product"', async () => {
    const { page, seen } = await pageOf('viewer')
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
    assert.deepEqual(seen.cspViolations, [])
    await page.context().close()
  })
})
