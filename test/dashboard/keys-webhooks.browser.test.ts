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
  watchPage,
} from '../helpers/browser.ts'
import { memberOf } from '../helpers/dashboard.ts'
import { startReceiver } from '../helpers/https-receiver.ts'
import { waitUntil } from '../helpers/wait.ts'
import { resolverWithWrongName } from '../helpers/webhook-targets.ts'

/**
 * API keys and Webhooks as a developer and a viewer use them, in headless
 * Chromium, with a webhook worker delivering to a local HTTPS receiver: a key
 * is shown once and revoked with a confirmation; an endpoint's delivery of an
 * order made through /v1 appears in its log without a reload, opens its
 * attempts and is redelivered. Every page passes axe.
 */
describe('API keys and webhooks in a browser', { skip: browserSkip, timeout: 600_000 }, () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  let orgId: string
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  let developer: Awaited<ReturnType<typeof memberOf>>
  let viewer: Awaited<ReturnType<typeof memberOf>>
  const pages: { page: Page; seen: Awaited<ReturnType<typeof watchPage>> }[] = []

  before(async () => {
    ;({ t, origin, browser } = await startBrowserApp({
      resolver: resolverWithWrongName,
      webhookAllowPrivateCidrs: ['127.0.0.0/8'],
    }))
    orgId = (await t.createOrganization('Hooked Prints')).id
    developer = await memberOf(t, orgId, 'developer')
    viewer = await memberOf(t, orgId, 'viewer')
    receiver = await startReceiver()
    await t.startDispatcher({ ca: receiver.ca })
  })
  after(() => closeAll(browser, t, receiver))

  async function pageAs(member: { client: { cookies: Map<string, string> } }) {
    const context = await signedInContext(browser, member.client, origin, 30_000)
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin })
    const page = await context.newPage()
    pages.push({ page, seen: await watchPage(page) })
    return page
  }

  let liveKey = ''

  test('a developer creates a live key (shown once, with a copy button) and revokes another after confirming', async () => {
    const other = await t.createKey(orgId, { environment: 'test' })
    const otherPrefix = (
      await t.db
        .selectFrom('api_keys')
        .select('key_prefix')
        .where('id', '=', other.id)
        .executeTakeFirstOrThrow()
    ).key_prefix
    const page = await pageAs(developer)
    await page.goto(`${origin}/dashboard/api-keys`)
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor()
    await page.getByRole('table', { name: 'API keys' }).waitFor()
    await assertAccessible(page, 'API keys')

    // Scopes are labelled by what they allow: /v1 creates orders but cannot cancel them.
    const scopes = page.getByRole('group', { name: 'Scopes' })
    for (const name of [
      'Read orders (orders:read)',
      'Create orders (orders:write)',
      'Upload files (files:write)',
      'Manage webhooks (webhooks:manage)',
    ]) {
      await scopes.getByRole('checkbox', { name, exact: true }).waitFor()
    }
    await scopes.getByText('POST /v1/orders; orders cannot be changed or cancelled through the API').waitFor()
    assert.doesNotMatch((await scopes.textContent()) ?? '', /cancel orders/i)

    // The environment switch by keyboard: from Test, the arrow key moves to Live.
    await page.getByRole('radio', { name: 'Test' }).focus()
    await page.keyboard.press('ArrowRight')
    await waitUntil(() => page.getByRole('radio', { name: 'Live' }).isChecked(), 'Live chosen')
    await page.getByRole('button', { name: 'Create key' }).click()
    const shown = page.getByLabel('API key', { exact: true })
    await shown.waitFor()
    liveKey = (await shown.textContent())!.trim()
    assert.match(liveKey, /^svc_live_[0-9A-Za-z]{43}$/)
    await page.getByRole('button', { name: 'Copy api key' }).click()
    await page.getByRole('button', { name: 'Copied' }).waitFor()
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), liveKey)
    await page.getByRole('cell', { name: `${liveKey.slice(0, 17)}…` }).waitFor()
    await assertAccessible(page, 'API keys with a new key')

    // The key works; its use shows in the list (written within the minute, after the request).
    assert.equal((await t.api(liveKey, 'GET', '/v1/orders')).statusCode, 200)
    const created = await t.db
      .selectFrom('api_keys')
      .select(['id', 'last_used_at'])
      .where('key_prefix', '=', liveKey.slice(0, 17))
      .executeTakeFirstOrThrow()
    await waitUntil(
      async () =>
        (
          await t.db
            .selectFrom('api_keys')
            .select('last_used_at')
            .where('id', '=', created.id)
            .executeTakeFirstOrThrow()
        ).last_used_at,
      'last_used_at written',
    )

    await page.reload()
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor()
    assert.ok(!(await page.content()).includes(liveKey), 'the key is not shown again')
    const row = page.getByRole('row').filter({ hasText: liveKey.slice(0, 17) })
    const lastUsed = await row.getByRole('cell').nth(5).textContent()
    assert.ok(lastUsed && lastUsed !== 'Never', `last used: ${lastUsed}`)

    await page.getByRole('button', { name: `Revoke ${otherPrefix}` }).click()
    const dialog = page.getByRole('dialog', { name: 'Revoke API key' })
    await dialog
      .getByText(
        `Revoke ${otherPrefix}…? Every request with it gets 401 from now on, so whatever uses it stops working. Nobody is notified; the revocation is in the audit log.`,
        { exact: false },
      )
      .waitFor()
    assert.equal(
      (await t.api(other.key, 'GET', '/v1/orders')).statusCode,
      200,
      'not revoked by the first click',
    )
    await page.mouse.move(0, 0) // axe judges the colors at rest, not under the pointer
    await assertAccessible(page, 'revoke dialog')
    await dialog.getByRole('button', { name: 'Revoke key' }).click()
    await dialog.waitFor({ state: 'hidden' })
    await page.getByRole('row').filter({ hasText: otherPrefix }).getByText('Revoked').waitFor()
    assert.equal((await t.api(other.key, 'GET', '/v1/orders')).statusCode, 401)
  })

  test('an endpoint receives an order’s delivery, which appears without a reload, opens its attempts and is redelivered', async () => {
    assert.ok(liveKey, 'the key of the first test')
    const page = await pageAs(developer)
    await page.goto(`${origin}/dashboard/webhooks?environment=live`)
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor()
    await page.getByText('No live endpoints yet.').waitFor()
    await assertAccessible(page, 'Webhooks')

    // An http:// address is refused with the way to receive webhooks locally, the command as code.
    await page.getByRole('textbox', { name: /^URL/ }).fill('http://localhost:4242/webhooks')
    await page.getByRole('button', { name: 'Add endpoint' }).click()
    const refused = page.getByRole('alert').filter({ hasText: 'No endpoint was added' })
    await refused
      .getByText('Webhook URLs must use https. To receive webhooks on your own machine, run')
      .waitFor()
    assert.equal(
      await refused.locator('code').textContent(),
      'npx order-intake listen --forward-to http://localhost:4242/webhooks',
    )
    await assertAccessible(page, 'Webhooks with a refused URL')

    await page.getByRole('textbox', { name: /^URL/ }).fill(receiver.url('/orders'))
    await page.getByLabel('Description (optional)').fill('Order desk')
    await page.getByRole('button', { name: 'Add endpoint' }).click()
    const secret = (await page.getByLabel('Signing secret', { exact: true }).textContent())!.trim()
    assert.match(secret, /^whsec_/)
    await page.getByRole('button', { name: 'Copy signing secret' }).waitFor()
    await page.getByRole('table', { name: 'Webhook endpoints (live)' }).getByText('Order desk').waitFor()
    await assertAccessible(page, 'Webhooks with an endpoint')

    await page.getByRole('link', { name: 'Open the endpoint' }).click()
    await page.getByRole('heading', { name: 'Webhook endpoint', level: 1 }).waitFor()
    assert.match(page.url(), /environment=live/)
    await page.getByText('No deliveries match.').waitFor()
    assert.ok(!(await page.content()).includes(secret), 'the secret is not shown again')
    await assertAccessible(page, 'endpoint')

    const order = await t.api(liveKey, 'POST', '/v1/orders', orderBody())
    assert.equal(order.statusCode, 201, order.body)
    await receiver.waitFor(1)
    const log = page.getByRole('table', { name: 'Deliveries' })
    const first = log.getByRole('row').filter({ hasText: 'order.received' })
    await first.getByText('succeeded').waitFor() // by polling, no reload
    const eventId = (await first.getByRole('code').textContent())!.trim()

    await first.getByRole('button', { name: /^Details of/ }).click()
    const attempts = page.getByRole('dialog', { name: 'Delivery details' })
    await attempts
      .getByRole('table', { name: 'Attempts of the delivery' })
      .getByRole('cell', { name: '200' })
      .waitFor()
    await page.mouse.move(0, 0)
    await assertAccessible(page, 'attempts')
    await page.keyboard.press('Escape')
    await attempts.waitFor({ state: 'hidden' })

    await first.getByRole('button', { name: /^Redeliver/ }).click()
    await page.getByText('Redelivery queued as a new entry.').waitFor()
    const same = log.getByRole('row').filter({ hasText: eventId })
    await waitUntil(async () => (await same.count()) === 2, 'the redelivery listed')
    await same.filter({ hasText: 'Redelivery' }).getByText('succeeded').waitFor()
    assert.equal(receiver.received.length, 2)
    await assertAccessible(page, 'endpoint after redelivery')

    // A replay since a time: its count first, then its progress under the form; the event goes out once more.
    await page.getByRole('textbox', { name: 'Since', exact: true }).fill('2026-01-01T00:00')
    await page.getByRole('button', { name: 'Count events' }).click()
    await page
      .getByRole('status')
      .filter({ hasText: 'Replay preview' })
      .getByText('1 event would be sent again')
      .waitFor()
    await page.getByRole('button', { name: 'Replay 1 event' }).click()
    await page
      .getByRole('status')
      .filter({ hasText: 'Replay started' })
      .getByText('1 event will be sent')
      .waitFor()
    await page
      .getByTestId('latest-replay')
      .filter({ hasText: /^Completed: 1 of 1 event queued/ })
      .waitFor()
    await waitUntil(async () => (await same.count()) === 3, 'the replayed delivery listed')
    await same.filter({ hasText: 'Replay' }).getByText('succeeded').waitFor()
    await receiver.waitFor(3)
    assert.equal(receiver.received.length, 3)
    await assertAccessible(page, 'endpoint after a replay')
  })

  test('a viewer sees keys and webhooks but cannot create a key (no button; the API says 403)', async () => {
    const page = await pageAs(viewer)
    await page.goto(`${origin}/dashboard/api-keys`)
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor()
    await page.getByRole('table', { name: 'API keys' }).waitFor()
    assert.equal(await page.getByRole('button', { name: 'Create key' }).count(), 0)
    assert.equal(await page.getByRole('button', { name: /^Revoke/ }).count(), 0)
    await assertAccessible(page, 'API keys as a viewer')
    const refused = await viewer.client.call('POST', '/api-keys', {
      environment: 'live',
      scopes: ['orders:read'],
    })
    assert.equal(refused.statusCode, 403)
    assert.equal(refused.json().error.code, 'role_required')

    await page.goto(`${origin}/dashboard/webhooks?environment=live`)
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor()
    await page
      .getByRole('radio', { name: 'Live' })
      .and(page.locator(':checked'))
      .waitFor({ state: 'attached' })
    assert.equal(await page.getByRole('button', { name: 'Add endpoint' }).count(), 0)
    await assertAccessible(page, 'Webhooks as a viewer')
  })

  test('every page loaded nothing from elsewhere and nothing its CSP refused', () => {
    assert.ok(pages.length >= 3)
    for (const { page, seen } of pages) {
      assert.deepEqual(seen.cspViolations, [], page.url())
      assert.deepEqual(
        seen.requests.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:')),
        [],
      )
    }
  })
})
