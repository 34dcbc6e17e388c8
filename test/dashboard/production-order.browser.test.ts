import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import jsqr from 'jsqr'
import type { Browser, Page } from 'playwright-core'
import { PNG } from 'pngjs'
import { orderBody, type TestApp } from '../helpers/app.ts'
import {
  assertAccessible,
  browserSkip,
  closeAll,
  signedInContext,
  startBrowserApp,
  watchPage,
} from '../helpers/browser.ts'
import { operatorOf } from '../helpers/dashboard.ts'
import { createOrder, HOSTILE_SVG, MARKUP, PDF, png, uploadFile } from '../helpers/order-files.ts'

/** A4 in PostScript points (210 × 297 mm). */
const A4 = { width: 595.28, height: 841.89 }

/** The pages of a PDF as Chromium writes it: each page's MediaBox. */
function pdfPages(pdf: Buffer): { width: number; height: number }[] {
  const text = pdf.toString('latin1')
  return [
    ...text.matchAll(
      /\/Type\s*\/Page\b[^s][\s\S]*?\/MediaBox\s*\[\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*\]/g,
    ),
  ].map((m) => ({ width: Number(m[3]) - Number(m[1]), height: Number(m[4]) - Number(m[2]) }))
}

/**
 * The operator at the workbench, in headless Chromium: from the production
 * board (whose counts follow its filter) to one production order, where every
 * personalization field and file of every item shows, then its job sheet,
 * printed to PDF on A4, whose QR code scans back to the production order id.
 */
describe('a production order and its job sheet in a browser', { skip: browserSkip, timeout: 300_000 }, () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  let page: Page
  let seen: Awaited<ReturnType<typeof watchPage>>

  before(async () => {
    ;({ t, origin, browser } = await startBrowserApp())
    const operator = await operatorOf(t)
    page = await (await signedInContext(browser, operator.client, origin)).newPage()
    seen = await watchPage(page)
  })
  after(() => closeAll(browser, t))

  test('the operator opens an order from the board, sees what to make, and prints its job sheet', async () => {
    const org = await t.tenant('Workbench Prints')
    const other = await t.tenant('Elsewhere Prints')
    await createOrder(t, other.liveKey, orderBody())
    const photo = await uploadFile(t, org.liveKey, png([20, 120, 220]), 'photo.png')
    const logo = await uploadFile(t, org.liveKey, HOSTILE_SVG, 'logo.svg')
    const proof = await uploadFile(t, org.liveKey, PDF, 'proof.pdf')
    const body = orderBody({
      customer: { name: 'Ada Print', email: 'ada@example.com' },
      items: [
        {
          sku: 'MUG-01',
          name: 'Mug',
          quantity: 3,
          personalization: { text: 'Happy birthday, Grace', color: 'navy', note: MARKUP },
          files: [{ upload_id: photo, role: 'front' }, { upload_id: logo }],
        },
        { sku: 'CARD-01', name: 'Card', quantity: 1, files: [{ upload_id: proof, role: 'proof' }] },
      ],
    })
    const order = await createOrder(t, org.liveKey, body)
    const ref = body.external_order_id
    const { id: productionOrderId } = await t.db
      .selectFrom('production_orders')
      .select('id')
      .where('order_id', '=', order.id)
      .executeTakeFirstOrThrow()

    // The board, filtered to the organization: the count above the row is its own.
    await page.goto(`${origin}/dashboard/operator/production?organization_id=${org.orgId}`)
    await page.getByRole('heading', { name: 'Production', level: 1 }).waitFor()
    await page.getByText('Pending (1)').waitFor()
    await page.getByRole('link', { name: `Open production order ${ref}` }).click()

    // The production order: every item, field and file.
    await page.getByRole('heading', { name: `Production order ${ref}`, level: 1 }).waitFor()
    const mug = page.getByRole('region', { name: 'Item 1: Mug' })
    assert.match((await mug.textContent())!, /SKU: MUG-01.*Quantity: 3/)
    const fields = mug.getByRole('table', { name: 'Personalization of item 1' })
    assert.deepEqual(await fields.getByRole('row').allInnerTexts(), [
      'Field\tValue',
      'text\tHappy birthday, Grace',
      'color\tnavy',
      `note\t${MARKUP}`,
    ])
    const thumbnail = page.getByRole('img', { name: 'Thumbnail of photo.png' })
    await thumbnail.waitFor()
    await page.waitForFunction(() =>
      [...document.querySelectorAll('img')].every((img) => img.complete && img.naturalWidth > 0),
    )
    await page.getByRole('img', { name: 'Thumbnail of logo.svg' }).waitFor()
    const svgLink = page.getByRole('link', { name: 'Download sanitized SVG: logo.svg' })
    const svg = await page.request.get(new URL((await svgLink.getAttribute('href'))!, origin).href)
    assert.equal(svg.status(), 200)
    assert.doesNotMatch(await svg.text(), /script|onload/)
    const pdfLink = page.getByRole('link', { name: 'Download original: proof.pdf' })
    const original = await page.request.get(new URL((await pdfLink.getAttribute('href'))!, origin).href)
    assert.deepEqual(await original.body(), PDF)
    assert.equal(
      await page.getByRole('region', { name: 'Item 2: Card' }).getByRole('img').count(),
      0,
      'a PDF has no thumbnail',
    )
    const summary = page.getByRole('region', { name: 'Summary' })
    await summary.getByText('Produced in house').waitFor()
    await summary.getByText('Ada Print').waitFor()
    await page.getByRole('table', { name: 'History of the order' }).getByText('order.received').waitFor()
    assert.equal(
      await page.getByRole('link', { name: 'Change order' }).getAttribute('href'),
      `/dashboard/operator/orders/${order.id}`,
    )
    await assertAccessible(page, 'a production order')

    // The job sheet: printed to PDF on A4; its QR code carries the production order id.
    await page.getByRole('link', { name: 'Job sheet' }).click()
    const sheet = page.getByRole('article', { name: 'Job sheet' })
    await sheet.getByRole('heading', { name: `Order ${ref}`, level: 1 }).waitFor()
    await sheet.getByText('Happy birthday, Grace').waitFor()
    await sheet.getByText('3 × Mug (SKU MUG-01)').waitFor()
    const qr = sheet.getByRole('img', { name: `QR code of production order ${productionOrderId}` })
    await qr.waitFor()
    await page.waitForFunction(() =>
      [...document.querySelectorAll('img')].every((img) => img.complete && img.naturalWidth > 0),
    )
    await assertAccessible(page, 'a job sheet')

    await page.emulateMedia({ media: 'print' })
    assert.equal(
      await page.getByRole('button', { name: 'Print' }).isVisible(),
      false,
      'the toolbar does not print',
    )
    const shot = PNG.sync.read(await qr.screenshot())
    // jsqr is CommonJS: its function is the default export's `default`.
    const decoded = jsqr.default(new Uint8ClampedArray(shot.data), shot.width, shot.height)
    assert.equal(decoded?.data, productionOrderId)
    const pdf = await page.pdf({ preferCSSPageSize: true, printBackground: true })
    assert.equal(pdf.subarray(0, 5).toString(), '%PDF-')
    const pages = pdfPages(pdf)
    assert.equal(pages.length, 1, 'the sheet of a two-item order fits one page')
    assert.ok(
      Math.abs(pages[0]!.width - A4.width) < 2 && Math.abs(pages[0]!.height - A4.height) < 2,
      JSON.stringify(pages),
    )
    await page.emulateMedia({ media: 'screen' })

    assert.deepEqual(seen.cspViolations, [])
    assert.deepEqual(
      seen.requests.filter((url) => !url.startsWith(origin) && !url.startsWith('data:')),
      [],
      'nothing fetched from elsewhere',
    )
  })
})
