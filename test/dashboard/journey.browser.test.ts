import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
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
import { memberOf, operatorInvite, PASSWORD, uniqueEmail } from '../helpers/dashboard.ts'
import { startReceiver } from '../helpers/https-receiver.ts'
import { createOrder, PDF, png, uploadFile } from '../helpers/order-files.ts'
import { waitUntil } from '../helpers/wait.ts'
import { resolverWithWrongName } from '../helpers/webhook-targets.ts'

/**
 * The dashboard from an organization's first day, in one browser: the owner
 * accepts the operator's invitation and creates a live key; an order made
 * through /v1 with that key appears on Orders and Home with its files; a
 * webhook endpoint gets its delivery, which is redelivered; a product made
 * from the unmatched SKU links the item. A viewer cannot create a key, and a
 * member of another organization sees none of it.
 */
describe('an organization’s first day in the dashboard', { skip: browserSkip, timeout: 900_000 }, () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  let orgId: string
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  let owner: Page
  let seen: Awaited<ReturnType<typeof watchPage>>
  const ownerEmail = uniqueEmail('owner')
  const state = { liveKey: '', orderId: '', external: 'SHOP-FIRST-DAY', eventId: '' }

  before(async () => {
    ;({ t, origin, browser } = await startBrowserApp({
      resolver: resolverWithWrongName,
      webhookAllowPrivateCidrs: ['127.0.0.0/8'],
    }))
    orgId = (await t.createOrganization('First Day Prints')).id
    receiver = await startReceiver()
    await t.startDispatcher({ ca: receiver.ca })
    const context = await desktopContext(browser)
    owner = await context.newPage()
    seen = await watchPage(owner)
  })
  after(() => closeAll(browser, t, receiver))

  const nav = (page: Page, section: string) =>
    page
      .getByRole('navigation', { name: 'Dashboard' })
      .getByRole('link', { name: section, exact: true })
      .click()

  test('the owner accepts the invitation and creates a live key, shown once', async () => {
    const token = await operatorInvite(t, orgId, ownerEmail, 'owner')
    await owner.goto(`${origin}/dashboard/invitation#token=${token}`)
    await owner.getByLabel('New password').fill(PASSWORD)
    await owner.getByLabel('Repeat the password').fill(PASSWORD)
    await owner.getByRole('button', { name: 'Set password and sign in' }).click()
    await owner.getByRole('heading', { name: 'Home', level: 1 }).waitFor()

    await nav(owner, 'API keys')
    await owner.getByRole('heading', { name: 'API keys', level: 1 }).waitFor()
    // The environment switch, by keyboard: from Test the arrow key moves to Live.
    await owner.getByRole('radio', { name: 'Test' }).focus()
    await owner.keyboard.press('ArrowRight')
    await waitUntil(() => owner.getByRole('radio', { name: 'Live' }).isChecked(), 'Live chosen')
    await owner.getByRole('button', { name: 'Create key' }).click()
    const shown = owner.getByLabel('API key', { exact: true })
    state.liveKey = (await shown.textContent())!.trim()
    assert.match(state.liveKey, /^svc_live_/)
    await owner.getByRole('table', { name: 'API keys' }).getByText(ownerEmail).waitFor()
  })

  test('an order made through /v1 with that key appears on Orders and Home, with its files', async () => {
    assert.ok(state.liveKey, 'the key of the first step')
    await owner.goto(`${origin}/dashboard/webhooks?environment=live`)
    await owner.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor()
    await owner.getByRole('textbox', { name: /^URL/ }).fill(receiver.url('/first-day'))
    await owner.getByRole('button', { name: 'Add endpoint' }).click()
    await owner.getByLabel('Signing secret', { exact: true }).waitFor()

    await owner.goto(`${origin}/dashboard/orders?environment=live`)
    await owner.getByText('No live orders match.').waitFor()
    const image = await uploadFile(t, state.liveKey, png([200, 60, 40]), 'front.png')
    const proof = await uploadFile(t, state.liveKey, PDF, 'proof.pdf')
    const created = await createOrder(
      t,
      state.liveKey,
      orderBody({
        external_order_id: state.external,
        items: [
          {
            sku: 'TOTE-NATURAL',
            name: 'Tote bag',
            quantity: 3,
            personalization: { initials: 'AL' },
            files: [
              { upload_id: image, role: 'front' },
              { upload_id: proof, role: 'proof' },
            ],
          },
        ],
      }),
    )
    state.orderId = created.id
    const table = owner.getByRole('table', { name: 'Live orders, newest first' })
    await table.getByRole('link', { name: state.external }).waitFor() // by polling, no reload

    await nav(owner, 'Home')
    const today = owner.getByRole('row', { name: /^Today/ })
    await today.waitFor()
    assert.equal(await today.getByRole('cell').first().innerText(), '1')

    await owner.goto(`${origin}/dashboard/orders?environment=live`)
    await table.getByRole('link', { name: state.external }).click()
    await owner.getByRole('heading', { name: `Order ${state.external}`, level: 1 }).waitFor()
    const item = owner.getByRole('region', { name: 'Item 1: Tote bag' })
    await item.getByRole('cell', { name: 'AL', exact: true }).waitFor()
    const thumb = item.getByRole('img', { name: 'Preview of front.png' })
    await owner.waitForFunction(
      (el) => (el as HTMLImageElement).complete && (el as HTMLImageElement).naturalWidth > 0,
      await thumb.elementHandle(),
    )
    await item.getByRole('link', { name: 'proof.pdf' }).waitFor()
    await assertAccessible(owner, 'order page')
  })

  test('the endpoint’s delivery appears in its log and is redelivered', async () => {
    assert.ok(state.orderId, 'the order of the second step')
    await receiver.waitFor(1)
    await owner.goto(`${origin}/dashboard/webhooks?environment=live`)
    await owner.getByRole('link', { name: receiver.url('/first-day') }).click()
    await owner.getByRole('heading', { name: 'Webhook endpoint', level: 1 }).waitFor()
    const log = owner.getByRole('table', { name: 'Deliveries' })
    const first = log.getByRole('row').filter({ hasText: 'order.received' })
    await first.getByText('succeeded').waitFor()
    state.eventId = (await first.getByRole('code').textContent())!.trim()
    await first.getByRole('button', { name: /^Redeliver/ }).click()
    const same = log.getByRole('row').filter({ hasText: state.eventId })
    await waitUntil(async () => (await same.count()) === 2, 'the redelivery listed')
    await same.filter({ hasText: 'Redelivery' }).getByText('succeeded').waitFor()
    assert.deepEqual(
      receiver.received.map((r) => JSON.parse(r.body.toString()).id),
      [state.eventId, state.eventId],
    )
  })

  test('a product created from the unmatched SKU links the item', async () => {
    await nav(owner, 'Products')
    const unmatched = owner.getByRole('table', { name: 'Unmatched SKUs' })
    await unmatched.getByRole('button', { name: 'Create product for TOTE-NATURAL' }).click()
    const form = owner.getByRole('region', { name: 'Add a product' })
    await form.getByRole('textbox', { name: 'Name' }).fill('Natural tote')
    await form.getByRole('button', { name: 'Add product' }).click()
    await owner.getByRole('status').getByText('It linked 1 existing item').waitFor()
    await owner.goto(`${origin}/dashboard/orders/${state.orderId}`)
    await owner.getByRole('region', { name: 'Item 1: Tote bag' }).getByText('Linked to a product').waitFor()

    await nav(owner, 'Audit log')
    // Each entry a sentence of what happened.
    for (const sentence of [
      / created live key svc_live_\S+… with /,
      / added (live |test )?webhook endpoint https?:\/\//,
      / redelivered an? \S+ event to https?:\/\//,
      / created product \S+/,
    ]) {
      await owner.getByText(sentence).first().waitFor()
    }
    assert.deepEqual(seen.cspViolations, [])
    assert.deepEqual(
      seen.requests.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:')),
      [],
    )
  })

  test('a viewer cannot create a key; a member of another organization sees none of it', async () => {
    const viewer = await memberOf(t, orgId, 'viewer')
    const viewerPage = await (await signedInContext(browser, viewer.client, origin)).newPage()
    await viewerPage.goto(`${origin}/dashboard/api-keys`)
    await viewerPage.getByRole('table', { name: 'API keys' }).getByText(ownerEmail).waitFor()
    assert.equal(await viewerPage.getByRole('button', { name: 'Create key' }).count(), 0)
    const refused = await viewer.client.call('POST', '/api-keys', {
      environment: 'live',
      scopes: ['orders:read'],
    })
    assert.equal(refused.statusCode, 403)

    const stranger = await memberOf(t, (await t.createOrganization('Elsewhere Prints')).id, 'owner')
    const page = await (await signedInContext(browser, stranger.client, origin)).newPage()
    await page.goto(`${origin}/dashboard/orders?environment=live`)
    await page.getByText('No live orders match.').waitFor()
    await page.goto(`${origin}/dashboard/orders/${state.orderId}`)
    await page.getByRole('alert').waitFor()
    assert.equal(await page.getByText(state.external).count(), 0)
    for (const [path, empty] of [
      ['/api-keys', 'No keys yet.'],
      ['/products', 'No products yet.'],
    ] as const) {
      await page.goto(`${origin}/dashboard${path}`)
      await page.getByText(empty).first().waitFor()
      const text = await page.locator('main').innerText()
      for (const marker of [ownerEmail, 'TOTE-NATURAL', 'Natural tote', state.liveKey.slice(0, 17)]) {
        assert.ok(!text.includes(marker), `${path} shows ${marker}`)
      }
    }
    await page.goto(`${origin}/dashboard/webhooks?environment=live`)
    await page.getByText('No live endpoints yet.').waitFor()
  })
})
