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
  desktopContext,
  signedInContext,
  startBrowserApp,
  watchPage,
} from '../helpers/browser.ts'
import { memberOf, operatorOf, PASSWORD, uniqueEmail } from '../helpers/dashboard.ts'
import { loopbackResolver } from '../helpers/https-receiver.ts'
import { createOrder, HOSTILE_SVG, MARKUP, PDF, png, uploadFile } from '../helpers/order-files.ts'
import { waitUntil } from '../helpers/wait.ts'

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

/** The links of an operator's navigation, in order. */
const CONSOLE_NAV = [
  'Organizations',
  'Production',
  'Batches',
  'Stations',
  'Production calendar',
  'Shop orders',
  'Statistics',
  'Billing',
  'Operators',
  'Audit log (platform)',
  'Account',
]

/**
 * The operator's console in headless Chromium, one service for the whole
 * journey: an operator accepts its invitation and signs in on the pages; the
 * console's pages show their data and pass axe; a live order with two items
 * goes from pending to completed item by item on the Production board, each
 * action showing the event it recorded; the actions that cannot be undone ask
 * first; a production order shows what to make and moves as its board row
 * does, and its job sheet prints on one A4 page whose QR code scans back to
 * it; a member can open none of it.
 * What the console API answers and stores is asserted in
 * test/modules/organizations/organizations.console.test.ts.
 */
describe('the operator console in a browser', { skip: browserSkip, timeout: 600_000 }, () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  let orgId: string
  /** Console Prints' live order: its order.received went to the endpoint (a pending delivery). */
  let consoleOrder: string
  let liveKey: string
  let operator: Awaited<ReturnType<typeof operatorOf>>
  let member: Awaited<ReturnType<typeof memberOf>>
  let page: Page
  let seen: Awaited<ReturnType<typeof watchPage>>
  /** The workbench's order: two items, every kind of file, made once. */
  const workbench = { orgId: '', ref: '', orderId: '', productionOrderId: '', logo: '', proof: '' }

  before(async () => {
    ;({ t, origin, browser } = await startBrowserApp({
      resolver: loopbackResolver,
      webhookAllowPrivateCidrs: ['127.0.0.0/8'],
    }))
    orgId = (await t.createOrganization('Console Prints')).id
    liveKey = (await t.createKey(orgId, { environment: 'live' })).key
    // An endpoint, so the organization's page has live deliveries (no worker sends them).
    const endpoint = await t.api(liveKey, 'POST', '/v1/webhook-endpoints', {
      url: 'https://webhook.test/console',
    })
    assert.equal(endpoint.statusCode, 201, endpoint.body)
    consoleOrder = (await createOrder(t, liveKey, orderBody())).id

    const org = await t.tenant('Workbench Prints')
    const other = await t.tenant('Elsewhere Prints')
    await createOrder(t, other.liveKey, orderBody())
    // The mug's product asks for an A2 print area at 150 dpi: the 1 × 1 px photo is a problem.
    const mug = await t.admin('POST', `/admin/v1/organizations/${org.orgId}/products`, {
      sku: 'MUG-01',
      name: 'Mug',
    })
    assert.equal(mug.statusCode, 201, mug.body)
    const spec = await t.admin('PUT', `/admin/v1/products/${mug.json().data.product.id}/print-spec`, {
      print_spec: { default: { width_mm: 420, height_mm: 594 } },
    })
    assert.equal(spec.statusCode, 200, spec.body)
    const photo = await uploadFile(t, org.liveKey, png([20, 120, 220]), 'photo.png')
    workbench.logo = await uploadFile(t, org.liveKey, HOSTILE_SVG, 'logo.svg')
    workbench.proof = await uploadFile(t, org.liveKey, PDF, 'proof.pdf')
    const body = orderBody({
      customer: { name: 'Ada Print', email: 'ada@example.com' },
      items: [
        {
          sku: 'MUG-01',
          name: 'Mug',
          quantity: 3,
          personalization: { text: 'Happy birthday, Grace', color: 'navy', note: MARKUP },
          files: [{ upload_id: photo, role: 'front' }, { upload_id: workbench.logo }],
        },
        { sku: 'CARD-01', name: 'Card', quantity: 1, files: [{ upload_id: workbench.proof, role: 'proof' }] },
      ],
    })
    workbench.orgId = org.orgId
    workbench.ref = body.external_order_id
    workbench.orderId = (await createOrder(t, org.liveKey, body)).id
    workbench.productionOrderId = (await productionOrderOf(workbench.orderId)).id

    operator = await operatorOf(t)
    member = await memberOf(t, orgId, 'owner')
    page = await (await signedInContext(browser, operator.client, origin)).newPage()
    seen = await watchPage(page)
  })
  after(() => closeAll(browser, t))

  function productionOrderOf(orderId: string) {
    return t.db
      .selectFrom('production_orders')
      .select(['id', 'status'])
      .where('order_id', '=', orderId)
      .executeTakeFirstOrThrow()
  }

  /** The order's stored event types, in the order of recording. */
  async function eventTypes(orderId: string) {
    const rows = await t.db
      .selectFrom('events')
      .select('type')
      .where('order_id', '=', orderId)
      .orderBy('created_at')
      .orderBy('id')
      .execute()
    return rows.map((e) => e.type)
  }

  /** Waits up to 30 s until `read` gives `want`; a timeout says what it gave last. */
  async function until<T>(read: () => Promise<T>, want: T, what: string) {
    let last: T | undefined
    await waitUntil(
      async () => {
        last = await read()
        return last === want
      },
      what,
      { timeoutMs: 30_000, intervalMs: 50, details: () => `last: ${JSON.stringify(last)}` },
    )
  }

  /** Resolves once every image of the page has loaded and has a size; a timeout names those that had not. */
  const imagesLoaded = (p: Page) =>
    until(
      () =>
        p
          .evaluate(() =>
            [...document.querySelectorAll('img')]
              .filter((img) => !img.complete || img.naturalWidth === 0)
              .map((img) => img.alt),
          )
          .then((unloaded) => unloaded.join(', ')),
      '',
      'every image loaded',
    )

  test('an operator accepts its invitation on the page, sees the console and Account, signs out and in again', async () => {
    const email = uniqueEmail('operator')
    const invited = await t.admin('POST', '/admin/v1/operators/invitations', { email })
    assert.equal(invited.statusCode, 201, invited.body)
    const context = await desktopContext(browser)
    const own = await context.newPage()
    const watched = await watchPage(own)

    await own.goto(`${origin}/dashboard/invitation${new URL(invited.json().data.url).hash}`)
    await own.getByRole('heading', { name: 'Accept your invitation' }).waitFor()
    await own.getByText('You are invited as an operator of the platform.').waitFor()
    await assertAccessible(own, 'operator invitation')
    await own.getByLabel('New password').fill(PASSWORD)
    await own.getByLabel('Repeat the password').fill(PASSWORD)
    await own.getByRole('button', { name: 'Set password and sign in' }).click()

    await own.getByRole('heading', { name: 'Organizations', level: 1 }).waitFor()
    const nav = own.getByRole('navigation', { name: 'Dashboard' })
    assert.deepEqual(await nav.getByRole('link').allInnerTexts(), CONSOLE_NAV)
    await nav.getByRole('link', { name: 'Account' }).click()
    await own.getByRole('heading', { name: 'Account', level: 1 }).waitFor()
    await own.getByText(`${email} · operator of the platform`).waitFor()
    await assertAccessible(own, 'operator account')

    // A member page's address leads to the console, without calling the member API.
    await own.goto(`${origin}/dashboard/members`)
    await own.getByRole('heading', { name: 'Organizations', level: 1 }).waitFor()
    assert.ok(!watched.requests.some((url) => url.includes('/dashboard/api/members')), 'no member API call')

    await own.getByRole('banner').getByRole('button', { name: 'Sign out', exact: true }).click()
    await own.getByRole('heading', { name: 'Sign in to the dashboard' }).waitFor()
    await own.getByLabel('Email').fill(email)
    await own.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD)
    await own.getByRole('button', { name: 'Sign in' }).click()
    await own.getByRole('heading', { name: 'Organizations', level: 1 }).waitFor()
    assert.deepEqual(watched.cspViolations, [])
    await context.close()
  })

  test("Organizations: an organization's row with its live counts and webhook health, one created by keyboard with its owner's invitation link, an organization's page", async () => {
    await page.goto(`${origin}/dashboard/`)
    await page.getByRole('heading', { name: 'Organizations', level: 1 }).waitFor()
    const row = page.getByRole('row').filter({ hasText: 'Console Prints' })
    await row.getByRole('cell', { name: '1 active' }).waitFor()
    assert.equal(await row.getByRole('cell').nth(1).textContent(), '1')
    await assertAccessible(page, 'Organizations')

    // Create an organization and invite its first owner, by keyboard.
    await page.getByLabel('Name').fill('Keyboard Org')
    await page.getByLabel("First owner's email").fill('keyboard-owner@example.com')
    await page.keyboard.press('Enter')
    await page.getByLabel('Invitation link').waitFor()
    assert.match((await page.getByLabel('Invitation link').textContent())!, /\/dashboard\/invitation#token=/)
    await page.getByRole('row').filter({ hasText: 'Keyboard Org' }).waitFor()
    await assertAccessible(page, 'Organizations with an invitation link')

    await page.getByRole('link', { name: 'Console Prints' }).click()
    await page.getByRole('heading', { name: 'Console Prints', level: 1 }).waitFor()
    await page.getByRole('table', { name: 'Webhook deliveries (live)' }).getByText('order.received').waitFor()
    await page.getByRole('table', { name: 'API keys' }).waitFor()
    await assertAccessible(page, 'an organization')
  })

  test('the Production board: an order with two items goes from pending to completed item by item, each action showing the one event it recorded', async () => {
    const body = orderBody({
      items: [
        { sku: 'MUG-01', name: 'Mug', quantity: 2 },
        { sku: 'CARD-01', name: 'Card', quantity: 1 },
      ],
    })
    const order = await createOrder(t, liveKey, body)
    const ref = body.external_order_id
    await page.goto(`${origin}/dashboard/operator/production?organization_id=${orgId}`)
    await page.getByRole('heading', { name: 'Production', level: 1 }).waitFor()
    const row = page.getByRole('row').filter({ hasText: ref })
    await row.waitFor()
    await assertAccessible(page, 'Production board')

    const outcome = page.getByRole('status').filter({ hasText: 'Recorded' })
    async function act(name: string, event: string) {
      await page.getByRole('button', { name }).click()
      await outcome.filter({ hasText: event }).waitFor()
      assert.equal(await outcome.getByRole('listitem').count(), 1, `${name}: one event`)
    }

    await act(`Start production: ${ref}`, 'order.production_started')
    await assertAccessible(page, 'Production board after an action')
    // The order is now on the In production view (the status filter, by keyboard).
    await page.getByRole('radio', { name: /^Pending/ }).focus()
    await page.keyboard.press('ArrowRight')
    await until(
      () => page.getByRole('radio', { name: /^In production/ }).isChecked(),
      true,
      'In production chosen',
    )
    await row.waitFor()
    await act(`Complete item Mug: ${ref}`, 'order_item.completed')
    await act(`Complete item Card: ${ref}`, 'order_item.completed')
    await row.getByText('done').nth(1).waitFor()
    await act(`Mark completed: ${ref}`, 'order.production_completed')
    await page.getByRole('radio', { name: /^In production/ }).focus()
    await page.keyboard.press('ArrowRight')
    await until(() => page.getByRole('radio', { name: /^Completed/ }).isChecked(), true, 'Completed chosen')
    await row.getByText('Completed', { exact: true }).waitFor()
    // The clicks acted on this order, once each.
    assert.deepEqual(await eventTypes(order.id), [
      'order.received',
      'order.production_started',
      'order_item.completed',
      'order_item.completed',
      'order.production_completed',
    ])
  })

  test('a second operator acting on a stale page gets a conflict in words', async () => {
    const body = orderBody()
    const order = await createOrder(t, liveKey, body)
    await page.goto(`${origin}/dashboard/operator/production?organization_id=${orgId}`)
    const row = page.getByRole('row').filter({ hasText: body.external_order_id })
    await row.waitFor()
    // Another operator starts it first (the page has not polled yet).
    const other = await operatorOf(t)
    const first = await other.client.call(
      'POST',
      `/operator/production-orders/${(await productionOrderOf(order.id)).id}/status`,
      { status: 'in_progress', expected_status: 'pending' },
    )
    assert.equal(first.statusCode, 200, first.body)
    await page.getByRole('button', { name: `Cancel order: ${body.external_order_id}` }).click()
    await page
      .getByRole('dialog', { name: `Cancel order ${body.external_order_id}?` })
      .getByRole('button', { name: 'Cancel the order' })
      .click()
    const alert = page.getByRole('alert').filter({ hasText: 'Changed meanwhile' })
    await alert.waitFor()
    await alert.getByText('its production status is now in_progress').waitFor()
  })

  test('Mark failed, Cancel order and Reopen order ask first, saying what happens and who is told; only confirming acts', async () => {
    const body = orderBody()
    const ref = body.external_order_id
    const order = await createOrder(t, liveKey, body)
    const started = await operator.client.call(
      'POST',
      `/operator/production-orders/${(await productionOrderOf(order.id)).id}/status`,
      { status: 'in_progress', expected_status: 'pending' },
    )
    assert.equal(started.statusCode, 200, started.body)
    const board = (status: string) =>
      page.goto(`${origin}/dashboard/operator/production?organization_id=${orgId}&status=${status}`)
    const row = page.getByRole('row').filter({ hasText: ref })
    const outcome = page.getByRole('status').filter({ hasText: 'Recorded' })
    const unchanged = async (status: string, types: string[]) => {
      assert.equal((await productionOrderOf(order.id)).status, status)
      assert.deepEqual(await eventTypes(order.id), types)
    }

    // Mark failed: the first click only asks; Escape closes, focus returns, nothing is done.
    await board('in_progress')
    await row.waitFor()
    const markFailed = page.getByRole('button', { name: `Mark failed: ${ref}` })
    await markFailed.click()
    const fail = page.getByRole('dialog', { name: `Mark order ${ref} failed?` })
    await fail
      .getByText(
        "Production stops: the order and its unfinished items become failed, and the organization's members see it failed. The organization's live webhook endpoints receive order.production_failed.",
      )
      .waitFor()
    await until(
      () => page.evaluate(() => document.activeElement?.textContent),
      'Keep it in production',
      'focus on the button that keeps the order as it is',
    )
    await until(() => fail.evaluate((el) => getComputedStyle(el).opacity), '1', 'the dialog fully shown')
    await assertAccessible(page, 'Mark failed dialog')
    await page.keyboard.press('Escape')
    await fail.waitFor({ state: 'hidden' })
    await until(
      () => page.evaluate(() => document.activeElement?.getAttribute('aria-label')),
      `Mark failed: ${ref}`,
      'focus back on Mark failed',
    )
    await unchanged('in_progress', ['order.received', 'order.production_started'])
    await markFailed.click()
    await fail.getByRole('button', { name: 'Mark failed' }).click()
    await outcome.filter({ hasText: 'order.production_failed' }).waitFor()
    await unchanged('failed', ['order.received', 'order.production_started', 'order.production_failed'])

    // Cancel order: keeping the order does nothing; confirming cancels it.
    await board('failed')
    await row.waitFor()
    await page.getByRole('button', { name: `Cancel order: ${ref}` }).click()
    const cancel = page.getByRole('dialog', { name: `Cancel order ${ref}?` })
    await cancel
      .getByText(
        "The organization's live webhook endpoints receive order.cancelled. Only an operator can reopen it, from the Cancelled view.",
        { exact: false },
      )
      .waitFor()
    await cancel.getByRole('button', { name: 'Keep the order' }).click()
    await cancel.waitFor({ state: 'hidden' })
    const failed = ['order.received', 'order.production_started', 'order.production_failed']
    await unchanged('failed', failed)
    await page.getByRole('button', { name: `Cancel order: ${ref}` }).click()
    await cancel.getByRole('button', { name: 'Cancel the order' }).click()
    await outcome.filter({ hasText: 'order.cancelled' }).waitFor()
    await unchanged('cancelled', [...failed, 'order.cancelled'])

    // Moving a cancelled order: Reopen asks, says the endpoints already have order.cancelled.
    await board('cancelled')
    await row.waitFor()
    await page.getByRole('button', { name: `Reopen order: ${ref}` }).click()
    const reopen = page.getByRole('dialog', { name: `Reopen order ${ref}?` })
    await reopen
      .getByText(
        "It was cancelled, and the organization's live webhook endpoints were sent order.cancelled. Reopening moves it back to pending",
        { exact: false },
      )
      .waitFor()
    await unchanged('cancelled', [...failed, 'order.cancelled'])
    await reopen.getByRole('button', { name: 'Reopen order' }).click()
    await page
      .getByRole('status')
      .filter({ hasText: `Reopen order: ${ref}` })
      .getByText('Recorded no event')
      .waitFor()
    await unchanged('pending', [...failed, 'order.cancelled'])
    assert.deepEqual(seen.cspViolations, [])
  })

  test('a production order opened from the board shows what to make; its job sheet prints on one A4 page whose QR code scans back to it', async () => {
    const { ref, productionOrderId } = workbench
    // The board, filtered to the organization: the count above the row is its own.
    await page.goto(`${origin}/dashboard/operator/production?organization_id=${workbench.orgId}`)
    await page.getByRole('heading', { name: 'Production', level: 1 }).waitFor()
    await page.getByText('Pending (1)').waitFor()
    await page.getByRole('link', { name: `Open production order ${ref}` }).click()

    // The production order: every item, field and file; markup shows as text.
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
    await page.getByRole('img', { name: 'Thumbnail of photo.png' }).waitFor()
    await page.getByRole('img', { name: 'Thumbnail of logo.svg' }).waitFor()
    await imagesLoaded(page)
    // Preflight: the photo measured against the mug's spec, with what to do.
    await mug.getByText('Print check: problem').first().waitFor()
    await mug
      .getByText(
        /1 \u00d7 1 px prints at 0 dpi, 150 asked\. Upload at least 2.481 \u00d7 3.508 px for 420 \u00d7 594 mm at 150 dpi\./,
      )
      .waitFor()
    await mug.getByText(/^Measured: 1 \u00d7 1 px \(PNG\)/).waitFor()
    // The downloads go through the production order (their bytes: dashboard.console.test.ts).
    const files = `/dashboard/api/operator/production-orders/${productionOrderId}/files`
    assert.equal(
      await page.getByRole('link', { name: 'Download sanitized SVG: logo.svg' }).getAttribute('href'),
      `${files}/${workbench.logo}`,
    )
    assert.equal(
      await page.getByRole('link', { name: 'Download original: proof.pdf' }).getAttribute('href'),
      `${files}/${workbench.proof}`,
    )
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
      `/dashboard/operator/orders/${workbench.orderId}`,
    )
    // The board row's actions, on the page: starting shows its event; the refreshed page then asks before failing.
    await mug.getByRole('button', { name: `Complete item Mug: ${ref}` }).waitFor()
    await page.getByRole('button', { name: `Start production: ${ref}` }).click()
    await page.getByRole('status').filter({ hasText: 'order.production_started' }).waitFor()
    await page.getByRole('button', { name: `Mark failed: ${ref}` }).click()
    const fail = page.getByRole('dialog', { name: `Mark order ${ref} failed?` })
    await fail.getByText(/^Production stops: .* receive order\.production_failed\./).waitFor()
    await fail.getByRole('button', { name: 'Keep it in production' }).click()
    await fail.waitFor({ state: 'hidden' })
    await assertAccessible(page, 'a production order')

    // The job sheet: printed to PDF on A4; its QR code carries the production order id (po:<id>).
    await page.getByRole('link', { name: 'Job sheet' }).click()
    const sheet = page.getByRole('article', { name: 'Job sheet' })
    await sheet.getByRole('heading', { name: `Order ${ref}`, level: 1 }).waitFor()
    await sheet.getByText('Happy birthday, Grace').waitFor()
    await sheet.getByText('3 × Mug (SKU MUG-01)').waitFor()
    // The sheet flags the file the press cannot print well.
    await sheet.getByText(/^Print check problem: 1 \u00d7 1 px prints at 0 dpi/).waitFor()
    const qr = sheet.getByRole('img', { name: `QR code of production order ${productionOrderId}` })
    await qr.waitFor()
    await imagesLoaded(page)
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
    assert.equal(decoded?.data, `po:${productionOrderId}`)
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

  test('the floor: three orders batched on the board, the batch sheet printed (its QR codes read back), the batch started and an item completed by scanning at a station', async () => {
    const floor = await t.tenant('Floor Prints')
    const orders = []
    for (const text of ['Anna', 'Ben', 'Cleo']) {
      const body = orderBody({
        items: [
          { sku: 'POSTER-A2', name: 'Poster A2', quantity: 1, personalization: { text } },
          { sku: 'CARD-01', name: 'Card', quantity: 2 },
        ],
      })
      const id = (await createOrder(t, floor.liveKey, body)).id
      orders.push({ id, ref: body.external_order_id, po: (await productionOrderOf(id)).id })
    }
    const station = await operator.client.call('POST', '/operator/stations', { name: 'Press 2' })
    assert.equal(station.statusCode, 201, station.body)
    const stationId = station.json().data.station.id

    // The board: tick the three, add them to a new batch.
    await page.goto(`${origin}/dashboard/operator/production?organization_id=${floor.orgId}`)
    for (const o of orders) await page.getByRole('checkbox', { name: `Select order ${o.ref}` }).check()
    await page.getByRole('button', { name: 'Add 3 to batch…' }).click()
    const dialog = page.getByRole('dialog', { name: 'Add 3 orders to a batch' })
    await dialog.getByLabel('Name').fill('A2 posters')
    await dialog.getByRole('button', { name: 'Add 3 orders' }).click()
    await page.getByRole('status').filter({ hasText: 'The batch now holds 3 orders' }).waitFor()
    await page.getByRole('link', { name: 'Open batch A2 posters' }).click()
    await page.getByRole('heading', { name: /A2 posters/, level: 1 }).waitFor()
    const batchId = new URL(page.url()).pathname.split('/').at(-1)!
    await assertAccessible(page, 'a batch')

    // The batch sheet: A4 pages; the batch's, an order's and an item line's QR codes read back.
    await page.getByRole('link', { name: 'Print batch sheet' }).click()
    const sheet = page.getByRole('article', { name: 'Batch sheet' })
    await sheet.getByText('Cleo').waitFor()
    await imagesLoaded(page)
    await assertAccessible(page, 'a batch sheet')
    await page.emulateMedia({ media: 'print' })
    const pdf = await page.pdf({ preferCSSPageSize: true, printBackground: true })
    for (const sized of pdfPages(pdf)) {
      assert.ok(
        Math.abs(sized.width - A4.width) < 2 && Math.abs(sized.height - A4.height) < 2,
        JSON.stringify(sized),
      )
    }
    await page.emulateMedia({ media: 'screen' })
    const jobs = await t.db
      .selectFrom('production_jobs as j')
      .innerJoin('order_items as i', 'i.id', 'j.order_item_id')
      .select('j.id')
      .where('j.production_order_id', '=', orders[0]!.po)
      .orderBy('i.position')
      .execute()
    /** The QR code's image drawn large on the page, then read as a scanner would. */
    const read = async (name: string) => {
      const src = await sheet.getByRole('img', { name }).getAttribute('src')
      await page.evaluate((url) => {
        document.getElementById('qr-probe')?.remove()
        const img = Object.assign(new Image(320, 320), { id: 'qr-probe', src: url })
        document.body.prepend(img)
      }, src!)
      await until(
        () => page.evaluate(() => (document.getElementById('qr-probe') as HTMLImageElement).complete),
        true,
        'the probe drawn',
      )
      const shot = PNG.sync.read(await page.locator('#qr-probe').screenshot())
      return jsqr.default(new Uint8ClampedArray(shot.data), shot.width, shot.height)?.data
    }
    assert.equal(await read(`QR code of batch ${batchId}`), `batch:${batchId}`)
    assert.equal(await read(`QR code of production order ${orders[1]!.ref}`), `po:${orders[1]!.po}`)
    const line = await read(`QR code of the job of ${orders[0]!.ref}, item 1`)
    assert.equal(line, `job:${jobs[0]!.id}`)

    // The station: the scan field has the focus; a scanner types the batch's code and Enter.
    await page.goto(`${origin}/dashboard/operator/stations/${stationId}`)
    const scanField = page.getByLabel('Scan a code')
    await scanField.waitFor()
    const focused = () => scanField.evaluate((el) => el === document.activeElement)
    await until(focused, true, 'the scan field has the focus')
    await page.keyboard.type(`batch:${batchId}`)
    await page.keyboard.press('Enter')
    await page.getByRole('status').filter({ hasText: 'Opened batch A2 posters (3 orders)' }).waitFor()
    await page.getByRole('button', { name: 'Start batch' }).click()
    const start = page.getByRole('dialog', { name: 'Start batch A2 posters?' })
    await start.getByRole('button', { name: 'Start the batch' }).click()
    await page
      .getByRole('status')
      .filter({ hasText: 'Started batch A2 posters: 3 orders moved' })
      .first()
      .waitFor()
    await until(focused, true, 'the scan field has the focus again')
    await page.keyboard.type(line!)
    await page.keyboard.press('Enter')
    await page
      .getByRole('status')
      .filter({ hasText: `Completed item 1 × Poster A2 of order ${orders[0]!.ref}` })
      .waitFor()
    await page.keyboard.type(line!)
    await page.keyboard.press('Enter')
    await page.getByRole('status').filter({ hasText: 'This item was already completed' }).waitFor()
    await assertAccessible(page, 'a station')
    // On a phone-sized tablet: an order's sheet scanned and failed with a reason, nothing wider than the screen.
    await page.setViewportSize({ width: 390, height: 844 })
    await page.keyboard.type(`po:${orders[2]!.po}`)
    await page.keyboard.press('Enter')
    await page
      .getByRole('status')
      .filter({ hasText: `Opened order ${orders[2]!.ref}` })
      .waitFor()
    assert.ok(
      await page.evaluate(() => document.documentElement.scrollWidth <= 390),
      'nothing wider than 390 px',
    )
    await page.getByRole('button', { name: 'Fail…' }).click()
    const failing = page.getByRole('dialog', { name: `Mark order ${orders[2]!.ref} failed?` })
    await failing.getByLabel('Reason').fill('Ink smear')
    await failing.getByRole('button', { name: 'Mark failed' }).click()
    await page
      .getByRole('status')
      .filter({ hasText: `Marked order ${orders[2]!.ref} failed` })
      .waitFor()
    await until(focused, true, 'the scan field has the focus after the dialog')
    await page.setViewportSize({ width: 1280, height: 720 })

    // Each order made the reference's moves, once; each move names the station.
    for (const [n, o] of orders.entries()) {
      assert.deepEqual(
        await eventTypes(o.id),
        [
          'order.received',
          'order.production_started',
          ...(n === 0 ? ['order_item.completed'] : []),
          ...(n === 2 ? ['order.production_failed'] : []),
        ],
        o.ref,
      )
    }
    const audited = await t.db
      .selectFrom('audit_log')
      .select(['action', 'details'])
      .where('subject', 'in', [batchId, ...orders.map((o) => o.po), jobs[0]!.id])
      .where('action', 'in', [
        'production.batch_started',
        'production.status_set',
        'production.job_completed',
      ])
      .execute()
    assert.deepEqual(audited.map((a) => [a.action, a.details.station]).sort(), [
      ['production.batch_started', 'Press 2'],
      ['production.job_completed', 'Press 2'],
      ['production.status_set', 'Press 2'],
      ['production.status_set', 'Press 2'],
      ['production.status_set', 'Press 2'],
      ['production.status_set', 'Press 2'],
    ])
    assert.ok(audited.some((a) => a.details.to === 'failed' && a.details.reason === 'Ink smear'))
  })

  test('the job sheet on a phone: the QR code under the facts, each value on one line', async () => {
    const phone = await (await signedInContext(browser, operator.client, origin)).newPage()
    await phone.setViewportSize({ width: 390, height: 844 })
    await phone.goto(`${origin}/dashboard/operator/production/${workbench.productionOrderId}/job-sheet`)
    const sheet = phone.getByRole('article', { name: 'Job sheet' })
    const organization = sheet.getByText('Workbench Prints', { exact: true })
    const items = sheet.getByText('2 (4 pieces)', { exact: true })
    const qr = sheet.getByRole('img', { name: `QR code of production order ${workbench.productionOrderId}` })
    await qr.waitFor()
    const [org, last, code, label] = await Promise.all([
      organization.boundingBox(),
      items.boundingBox(),
      qr.boundingBox(),
      sheet.getByText('Organization', { exact: true }).boundingBox(),
    ])
    assert.ok(org && last && code && label)
    assert.ok(
      code.y >= last.y + last.height,
      `the QR code (y ${code.y}) is under the facts (end ${last.y + last.height})`,
    )
    // One line each: as high as its label, and wider than a few letters.
    assert.ok(org.height <= label.height * 1.5, `"Workbench Prints" is ${org.height}px high`)
    assert.ok(last.height <= label.height * 1.5, `"2 (4 pieces)" is ${last.height}px high`)
    assert.ok(org.width > 100, `"Workbench Prints" is ${org.width}px wide`)
    await assertAccessible(phone, 'a job sheet on a phone')
    await phone.context().close()
  })

  test("a console order names its organization (its id to copy) and shows the order's webhook deliveries", async () => {
    await page.goto(`${origin}/dashboard/operator/orders/${consoleOrder}`)
    await page.getByText(/^Live order of Console Prints, received /).waitFor()
    assert.equal(
      await page.getByRole('link', { name: 'Console Prints', exact: true }).getAttribute('href'),
      `/dashboard/operator/organizations/${orgId}`,
    )
    await page.getByRole('button', { name: 'Copy organization id' }).waitFor()
    assert.equal(await page.getByText(orgId).count(), 0, 'the id is not in the page text')
    const timeline = page.getByRole('table', { name: 'Events of the order and their webhook deliveries' })
    await timeline.getByText('order.received').waitFor()
    await timeline.getByText('https://webhook.test/console').waitFor()
    await assertAccessible(page, 'a console order with its deliveries')
    // What the delivery sent, as members see it (its signatures are not the operator's to read).
    await timeline
      .getByRole('button', { name: 'Payload and headers of order.received to https://webhook.test/console' })
      .click()
    const details = page.getByRole('dialog', { name: 'Delivery details' })
    assert.match((await details.getByLabel('Event payload').textContent())!, /"type": "order\.received"/)
    await assertAccessible(page, 'a console delivery')
    await details.getByRole('button', { name: 'Close' }).click()
  })

  test('Shop orders: the form creates one and says it produced no events', async () => {
    await page.goto(`${origin}/dashboard/operator/shop-orders`)
    await page.getByRole('heading', { name: 'Shop orders', level: 1 }).waitFor()
    await page.getByText('Shop orders produce no events').waitFor()
    await assertAccessible(page, 'Shop orders')
    await page.getByRole('combobox', { name: /^Organization/ }).click()
    await page.getByRole('option', { name: 'Console Prints' }).click()
    await page.getByLabel('Order number in the shop').fill('SHOP-1001')
    await page.getByLabel('Customer name').fill('Grace Hopper')
    await page.getByLabel('Customer email').fill('grace@example.com')
    await page.getByLabel('Total amount').fill('24.50')
    await page.getByLabel('Item 1 name').fill('Poster')
    // Checked before sending, with the service's limits: the message beside the field, nothing stored.
    await page.getByLabel('Currency').fill('E1')
    await page.getByRole('button', { name: 'Create shop order' }).click()
    await page.getByText('Currency must be three letters, such as EUR').waitFor()
    await page.getByLabel('Currency').fill('EUR')
    await page.getByText('Currency must be three letters, such as EUR').waitFor({ state: 'detached' })
    const stored = () =>
      t.db.selectFrom('orders').select('id').where('external_order_id', '=', 'SHOP-1001').execute()
    assert.equal((await stored()).length, 0)
    await page.getByRole('button', { name: 'Create shop order' }).click()
    const done = page.getByRole('status').filter({ hasText: 'Shop order created' })
    await done.waitFor()
    await done.getByText('Events recorded: none').waitFor()
    await assertAccessible(page, 'Shop orders after creating one')
    // The same number with other content: the service's refusal, beside the order number.
    await page.getByLabel('Customer name').fill('Ada Lovelace')
    await page.getByRole('button', { name: 'Create shop order' }).click()
    const refused = page.getByRole('alert').filter({ hasText: 'No shop order was created' })
    await refused.getByText('One field needs a change: its message is beside it.').waitFor()
    await refused.getByText('For support').click()
    await refused.getByText(/^order_already_exists_with_different_content · request /).waitFor()
    assert.equal((await stored()).length, 1)
    // The form's order, in the organization chosen.
    const row = await t.db
      .selectFrom('orders')
      .select(['organization_id', 'source'])
      .where('external_order_id', '=', 'SHOP-1001')
      .executeTakeFirstOrThrow()
    assert.deepEqual([row.organization_id, row.source], [orgId, 'shop'])
  })

  test('Statistics and the platform audit log', async () => {
    await page.goto(`${origin}/dashboard/operator/statistics`)
    await page.getByRole('heading', { name: 'Statistics', level: 1 }).waitFor()
    const perOrg = page.getByRole('table', { name: /Each organization/ })
    await perOrg.getByRole('row').filter({ hasText: 'Console Prints' }).waitFor()
    await assertAccessible(page, 'Statistics')

    await page.goto(`${origin}/dashboard/operator/audit-log`)
    await page.getByRole('heading', { name: 'Audit log (platform)', level: 1 }).waitFor()
    await page
      .getByRole('row')
      .filter({ hasText: new RegExp(`^.*${operator.email} completed the \\S+ job of order`) })
      .first()
      .waitFor()
    await assertAccessible(page, 'Audit log (platform)')
    assert.deepEqual(seen.cspViolations, [])
  })

  test('Operators: an invitation made (the link once) and revoked, another operator removed', async () => {
    const other = await operatorOf(t)
    await page.goto(`${origin}/dashboard/operator/organizations`)
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Operators' }).click()
    await page.getByRole('heading', { name: 'Operators', level: 1 }).waitFor()
    const accounts = page.getByRole('table', { name: /^Operator accounts/ })
    await accounts.getByRole('row').filter({ hasText: other.email }).waitFor()
    const mine = accounts.getByRole('row').filter({ hasText: operator.email })
    await mine.getByText('You').waitFor()
    assert.equal(await mine.getByRole('button').count(), 0, 'no Remove on its own row')
    await assertAccessible(page, 'Operators')

    const email = uniqueEmail('console-op')
    const invite = page.getByRole('region', { name: 'Invite an operator' })
    await invite.getByLabel('Email').fill(email)
    await invite.getByRole('button', { name: 'Create invitation' }).click()
    await invite.getByLabel('Invitation link').waitFor()
    assert.match(
      (await invite.getByLabel('Invitation link').textContent())!,
      /\/dashboard\/invitation#token=/,
    )
    const pending = page.getByRole('region', { name: 'Pending invitations' })
    await pending.getByRole('cell', { name: email, exact: true }).waitFor()
    await assertAccessible(page, 'Operators with an invitation link')
    await pending.getByRole('button', { name: `Revoke the invitation for ${email}` }).click()
    const revoke = page.getByRole('dialog', { name: 'Revoke invitation' })
    await revoke.getByRole('button', { name: 'Revoke invitation' }).click()
    await pending.getByRole('cell', { name: email, exact: true }).waitFor({ state: 'detached' })

    await accounts.getByRole('button', { name: `Remove ${other.email}` }).click()
    const remove = page.getByRole('dialog', { name: 'Remove operator' })
    await remove.getByText(`Remove ${other.email}? Every session`).waitFor()
    // axe reads colours as drawn: wait for the dialog's fade-in to end.
    await until(() => remove.evaluate((el) => getComputedStyle(el).opacity), '1', 'the dialog fully shown')
    await assertAccessible(page, 'Remove operator dialog')
    await remove.getByRole('button', { name: 'Remove operator' }).click()
    await page
      .getByRole('status')
      .filter({ hasText: `Removed ${other.email}: 1 session ended.` })
      .waitFor()
    await accounts.getByRole('row').filter({ hasText: other.email }).waitFor({ state: 'detached' })
    assert.deepEqual(seen.cspViolations, [])
  })

  test('a member cannot open the console: its pages send it home, without a console API call', async () => {
    const context = await signedInContext(browser, member.client, origin)
    const memberPage = await context.newPage()
    const watched = await watchPage(memberPage)
    for (const path of ['organizations', 'production', 'shop-orders', 'statistics', 'audit-log']) {
      await memberPage.goto(`${origin}/dashboard/operator/${path}`)
      await memberPage.getByRole('heading', { name: 'Home', level: 1 }).waitFor()
      assert.equal(new URL(memberPage.url()).pathname, '/dashboard/home')
    }
    const nav = memberPage.getByRole('navigation', { name: 'Dashboard' })
    assert.ok(!(await nav.getByRole('link').allInnerTexts()).includes('Production'))
    await until(
      async () => watched.requests.some((url) => url.includes('/dashboard/api/home')),
      true,
      'the home API called',
    )
    assert.ok(!watched.requests.some((url) => url.includes('/dashboard/api/operator')), 'no console API call')
    await context.close()
  })
})
