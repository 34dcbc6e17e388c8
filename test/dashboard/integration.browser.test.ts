import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { orderBody, type TestApp } from '../helpers/app.ts'
import {
  assertAccessible,
  browserSkip,
  closeAll,
  copyFrom,
  signedInContext,
  startBrowserApp,
  waitForCount,
  watchedPages,
} from '../helpers/browser.ts'
import { memberOf } from '../helpers/dashboard.ts'
import { startReceiver } from '../helpers/https-receiver.ts'
import { waitUntil } from '../helpers/wait.ts'
import { settleDelivery } from '../helpers/webhook-endpoints.ts'
import { resolverWithWrongName } from '../helpers/webhook-targets.ts'

type Member = Awaited<ReturnType<typeof memberOf>>

/**
 * The integration pages as developers and viewers use them, in headless
 * Chromium, on one service: a webhook endpoint's page (rotating its secret,
 * pending deliveries and a failing endpoint's probe, a replay counted first,
 * deletion typed), the request log, API keys (shown once, copied, revoked)
 * and Webhooks with a worker delivering to a local HTTPS receiver (a delivery
 * without a reload, its attempts, payload and headers, redelivery, replay, a
 * sample event). Each part has its own organization; each member one signed-in
 * browser profile. No page has a console error, a CSP violation or a request
 * elsewhere. The worker starts only after the endpoint page's part, whose
 * deliveries must stay pending.
 */
describe('the integration pages in a browser', { skip: browserSkip, timeout: 900_000 }, () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  const pages = watchedPages()

  before(async () => {
    ;({ t, origin, browser } = await startBrowserApp({
      resolver: resolverWithWrongName,
      webhookAllowPrivateCidrs: ['127.0.0.0/8'],
    }))
    receiver = await startReceiver()
  })
  after(() => closeAll(pages, browser, t, receiver))

  /**
   * The member's page (its own profile, with the clipboard), watched for CSP
   * violations and, with `noErrors`, console errors (a refused form logs its 4xx).
   */
  async function pageOf(
    member: { client: { cookies: Map<string, string> } },
    noErrors = false,
  ): Promise<Page> {
    const context = await signedInContext(browser, member.client, origin, 60_000)
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin })
    return pages.open(context, { noConsoleErrors: noErrors })
  }

  /** A part's organization, a developer and a viewer of it, and the developer's page (see pageOf). */
  async function partOrganization(name: string, noErrors = false) {
    const orgId = (await t.createOrganization(name)).id
    const developer = await memberOf(t, orgId, 'developer')
    const viewer = await memberOf(t, orgId, 'viewer')
    return { orgId, developer, viewer, page: await pageOf(developer, noErrors) }
  }

  describe('the endpoint page (no worker runs: deliveries stay pending)', () => {
    let orgId: string
    let liveKey: string
    let developer: Member
    let viewer: Member
    let page: Page

    before(async () => {
      ;({ orgId, developer, viewer, page } = await partOrganization('Endpoint Prints', true))
      liveKey = (await t.createKey(orgId, { environment: 'live' })).key
    })

    test('an endpoint page: secret rotated within its card, next tries, a replay counted first, deletion typed', async () => {
      const url = 'https://webhook.test/endpoint-page'
      const created = await developer.client.call('POST', '/webhook-endpoints?environment=live', { url })
      assert.equal(created.statusCode, 201, created.body)
      const endpointId = created.json().data.endpoint.id
      for (let i = 0; i < 2; i++) {
        assert.equal((await t.api(liveKey, 'POST', '/v1/orders', orderBody())).statusCode, 201)
      }

      await page.goto(`${origin}/dashboard/webhooks/${endpointId}?environment=live`)
      await page.getByRole('heading', { name: 'Webhook endpoint', level: 1 }).waitFor()

      // Pending deliveries say when they are tried next: no worker runs, so they are due now.
      const log = page.getByRole('table', { name: 'Deliveries' })
      const pending = log.getByRole('row').filter({ hasText: 'pending' })
      await pending.first().waitFor()
      assert.equal(await pending.count(), 2)
      for (const row of await pending.all()) await row.getByText('Due now', { exact: true }).waitFor()
      assert.equal(await page.getByRole('button', { name: 'Retry now' }).count(), 0, 'not failing')

      // Rotating: the new secret and its Copy button stay inside the card.
      const card = page.getByRole('region', { name: 'Secret and tests' })
      const secret = () =>
        t.db
          .selectFrom('webhook_endpoints')
          .select(['secret_encrypted', 'previous_secret_encrypted'])
          .where('id', '=', endpointId)
          .executeTakeFirstOrThrow()
      const before = await secret()
      // The first click only asks, saying how long the old secret keeps signing.
      await card.getByRole('button', { name: 'Rotate secret' }).click()
      const rotate = page.getByRole('dialog', { name: 'Rotate the signing secret?' })
      await rotate
        .getByText(
          'A new secret signs every delivery from now on; the old one signs too for 24 hours. The receiver must verify with the new secret by then. Nothing is sent to tell the receiver',
          { exact: false },
        )
        .waitFor()
      assert.deepEqual(await secret(), before, 'not rotated by the first click')
      await rotate.getByRole('button', { name: 'Rotate secret' }).click()
      const copy = card.getByRole('button', { name: 'Copy new signing secret' })
      await copy.waitFor()
      const cardBox = (await card.boundingBox())!
      for (const part of [copy, card.getByLabel('New signing secret')]) {
        const box = (await part.boundingBox())!
        assert.ok(box.x >= cardBox.x && box.x + box.width <= cardBox.x + cardBox.width, 'inside the card')
      }
      assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 1280)
      await assertAccessible(page, 'endpoint after rotating')

      // Delete is not among the everyday actions but in its own danger zone.
      assert.equal(await card.getByRole('button', { name: /Delete/ }).count(), 0)
      const danger = page.getByRole('region', { name: 'Danger zone' })
      await danger.getByRole('button', { name: 'Delete endpoint' }).waitFor()

      // A replay: the count first; nothing starts until it is confirmed.
      const replay = page.getByRole('region', { name: 'Replay events' })
      await replay.getByRole('textbox', { name: 'Since', exact: true }).fill('2026-01-01T00:00')
      await replay.getByRole('button', { name: 'Count events' }).click()
      const preview = replay.getByRole('status').filter({ hasText: 'Replay preview' })
      await preview.getByText('2 events would be sent again').waitFor()
      assert.equal(
        (await t.db.selectFrom('webhook_replays').select('id').execute()).length,
        0,
        'none started',
      )
      await assertAccessible(page, 'replay preview')
      // A changed window drops the count: it is counted again before any replay.
      await replay.getByRole('textbox', { name: 'Since', exact: true }).fill('2099-01-01T00:00')
      await preview.waitFor({ state: 'hidden' })
      await replay.getByRole('button', { name: 'Count events' }).click()
      await preview.getByText('No events match this window').waitFor()
      assert.equal(await replay.getByRole('button', { name: /^Replay \d/ }).count(), 0)
      await replay.getByRole('textbox', { name: 'Since', exact: true }).fill('2026-01-01T00:00')
      // A window that ends before it starts: said beside Until, nothing counted.
      const until = replay.getByRole('textbox', { name: /^Until/ })
      await until.fill('2025-01-01T00:00')
      await replay.getByRole('button', { name: 'Count events' }).click()
      await replay.getByText('Until must be later than Since').waitFor()
      await until.fill('')
      await replay.getByText('Until must be later than Since').waitFor({ state: 'detached' })
      await replay.getByRole('button', { name: 'Count events' }).click()
      await replay.getByRole('button', { name: 'Replay 2 events' }).click()
      await replay
        .getByRole('status')
        .filter({ hasText: 'Replay started' })
        .getByText('2 events will be sent')
        .waitFor()

      // What this page adds fits a phone's width (390 px) too.
      await page.setViewportSize({ width: 390, height: 844 })
      for (const region of [replay, danger]) {
        await region.scrollIntoViewIfNeeded()
        const box = (await region.boundingBox())!
        assert.ok(
          box.x >= 0 && box.x + box.width <= 390,
          `${await region.getAttribute('aria-labelledby')} at 390 px`,
        )
      }
      await page.setViewportSize({ width: 1280, height: 900 })

      // Deleting asks for the URL, typed.
      await danger.getByRole('button', { name: 'Delete endpoint' }).click()
      const dialog = page.getByRole('dialog', { name: 'Delete endpoint' })
      const confirm = dialog.getByRole('button', { name: 'Delete endpoint' })
      assert.ok(await confirm.isDisabled(), 'not before the URL is typed')
      await dialog.getByLabel("The endpoint's URL").fill('https://webhook.test/other')
      assert.ok(await confirm.isDisabled(), 'not with another URL')
      await assertAccessible(page, 'delete dialog')
      await dialog.getByLabel("The endpoint's URL").fill(url)
      await confirm.click()
      await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor()
      const stored = await t.db
        .selectFrom('webhook_endpoints')
        .select('is_active')
        .where('id', '=', endpointId)
        .executeTakeFirstOrThrow()
      assert.equal(stored.is_active, false)
    })

    test('a failing endpoint: its next probe, the deliveries waiting for it, and Retry now (not for a viewer)', async () => {
      const created = await developer.client.call('POST', '/webhook-endpoints?environment=live', {
        url: 'https://webhook.test/failing',
      })
      assert.equal(created.statusCode, 201, created.body)
      const endpointId = created.json().data.endpoint.id
      for (let i = 0; i < 2; i++) {
        assert.equal((await t.api(liveKey, 'POST', '/v1/orders', orderBody())).statusCode, 201)
      }
      const [first] = await t.db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('endpoint_id', '=', endpointId)
        .orderBy('id')
        .execute()
      // The first delivery's attempt failed (its retry in an hour): the endpoint's next probe is in a minute.
      await settleDelivery(t, first!.id, 'pending', new Date())

      await page.goto(`${origin}/dashboard/webhooks/${endpointId}?environment=live`)
      const probe = page.getByRole('region', { name: 'Deliveries waiting for the next probe' })
      await probe
        .getByText(
          /The endpoint is failing: its deliveries wait for its next probe, in (\d+ seconds|1 minute)/,
        )
        .waitFor()
      // Neither says "next try" at a time already past: both wait for the probe; the failed one for its retry too.
      const log = page.getByRole('table', { name: 'Deliveries' })
      const rows = log.getByRole('row').filter({ hasText: 'pending' })
      await rows.first().waitFor()
      assert.equal(await rows.count(), 2)
      await rows
        .first()
        .getByText(/^Waits for the endpoint’s next probe at [^,]+, \d{4}, [^,]+ \(the endpoint is failing\)$/)
        .waitFor()
      await rows
        .last()
        .getByText(
          /^Waits for the endpoint’s next probe at .+, then for its own next try at .+ \(the endpoint is failing\)$/,
        )
        .waitFor()
      assert.equal(await log.getByText(/Next try/).count(), 0)
      await assertAccessible(page, 'a failing endpoint')

      await probe.getByRole('button', { name: 'Retry now' }).click()
      await probe
        .getByRole('status')
        .getByText('One delivery goes now as the probe; if it succeeds, the waiting deliveries follow.')
        .waitFor()
      // No worker runs here: the probe stays due, and the failed delivery's own retry was brought forward for it.
      await probe.getByText(/its deliveries wait for its probe, due now/).waitFor()
      await rows
        .first()
        .getByText('Waits for the endpoint’s probe, due now (the endpoint is failing)')
        .waitFor()
      await rows
        .last()
        .getByText('Waits for the endpoint’s probe, due now (the endpoint is failing)')
        .waitFor()
      const audit = await developer.client.call('GET', '/audit-log?action=webhook_endpoint.retried_now')
      assert.equal(audit.json().data.length, 1)

      // A viewer reads the same, without the button.
      const viewerPage = await pageOf(viewer, true)
      await viewerPage.goto(`${origin}/dashboard/webhooks/${endpointId}?environment=live`)
      const seen = viewerPage.getByRole('region', { name: 'Deliveries waiting for the next probe' })
      await seen.getByText(/its deliveries wait for its probe, due now/).waitFor()
      assert.equal(await seen.getByRole('button', { name: 'Retry now' }).count(), 0)
    })
  })

  /**
   * The request log after real /v1 requests with a test key (an order
   * created, a refused order with a body over 16 KB, a read; and 26 reads
   * with a live key): the list, its environments, its pages and its filters
   * (kept in the address), one request with its body and answer and the curl
   * command to copy, the order page's link to the request that created it, a
   * request id pasted into the header search, and a viewer who sees a request
   * without its bodies.
   */
  describe('the request log', () => {
    let org: Awaited<ReturnType<TestApp['tenant']>>
    let viewer: Member
    let page: Page
    const sent = { orderId: '', external: '', refusedRequestId: '', refusedName: '' }

    before(async () => {
      org = await t.tenant('Logged Prints')
      const body = orderBody()
      const created = await t.api(org.testKey, 'POST', '/v1/orders', body)
      assert.equal(created.statusCode, 201, created.body)
      sent.orderId = created.json().data.order.id
      sent.external = body.external_order_id
      // A refused order whose body is larger than the 16 KB the log keeps.
      sent.refusedName = `Refused ${'x'.repeat(20_000)}`
      const refused = await t.api(org.testKey, 'POST', '/v1/orders', {
        ...orderBody(),
        customer: { name: sent.refusedName },
      })
      assert.equal(refused.statusCode, 422, refused.body)
      sent.refusedRequestId = String(refused.headers['x-request-id'])
      const read = await t.api(org.testKey, 'GET', `/v1/orders/${sent.orderId}`)
      assert.equal(read.statusCode, 200, read.body)
      // 26 reads with the live key: more than a page (25) of the live list.
      for (let n = 0; n < 26; n++) {
        const live = await t.api(org.liveKey, 'GET', `/v1/orders?limit=${n + 1}`)
        assert.equal(live.statusCode, 200, live.body)
      }
      // The log is written after the answers, off the request path: now, rather than within the second.
      await t.services.requests.recorder.flush()
      const developer = await memberOf(t, org.orgId, 'developer')
      viewer = await memberOf(t, org.orgId, 'viewer')
      page = await pageOf(developer)
    })

    const table = () => page.getByRole('table', { name: 'Test requests, newest first' })
    const rows = () =>
      table()
        .getByRole('row')
        .filter({ has: page.getByRole('link') })

    test('the list shows the requests, newest first; filters, environment and pages live in the address', async () => {
      // A link with a filter opens the list filtered.
      await page.goto(`${origin}/dashboard/requests?environment=test&path=/v1/orders/`)
      await page.getByRole('heading', { name: 'Requests', level: 1 }).waitFor()
      const filters = page.getByRole('form', { name: 'Filter requests' })
      // The form remounts from the cleared address; typing before it has would be lost.
      const clearFilters = async () => {
        const clear = filters.getByRole('button', { name: 'Clear filters' })
        await clear.click()
        await clear.waitFor({ state: 'detached' })
      }
      await waitForCount(rows(), 1, 'only the read, by its path')
      assert.equal(
        await filters.getByRole('textbox', { name: 'Path starts with' }).inputValue(),
        '/v1/orders/',
      )
      await rows().getByRole('link', { name: /^GET / }).waitFor()

      await clearFilters()
      await waitForCount(rows(), 3, 'all three')
      const texts = await rows().allTextContents()
      assert.match(texts[0]!, new RegExp(`GET /v1/orders/${sent.orderId}.*200`))
      assert.match(texts[1]!, /POST \/v1\/orders.*422.*validation_failed/)
      assert.match(texts[2]!, /POST \/v1\/orders.*201/)
      assert.match(texts[2]!, /svc_test_/, 'the key prefix')
      await assertAccessible(page, 'Requests')

      await filters.getByRole('combobox', { name: 'Status' }).selectOption('4xx')
      await waitForCount(rows(), 1, 'only the refused request')
      assert.match(page.url(), /status_class=4xx/)
      await rows().getByText('validation_failed').waitFor()
      await clearFilters()

      await filters.getByRole('textbox', { name: 'Error code' }).fill('validation_failed')
      await filters.getByRole('button', { name: 'Filter', exact: true }).click()
      assert.match(page.url(), /error_code=validation_failed/)
      await waitForCount(rows(), 1, 'by error code')
      await clearFilters()

      // Before the requests: none. The address keeps the instant (the field shows it in the reader's zone).
      await filters.getByLabel('Until').fill('2026-01-01T00:00')
      await page.getByText('No test requests match.').waitFor()
      const until = await page.evaluate(() => new Date('2026-01-01T00:00').toISOString())
      assert.equal(new URL(page.url()).searchParams.get('created_until'), until)
      await clearFilters()

      // The key filter offers the test keys only (the live key's requests are another list).
      const keys = await filters
        .getByRole('combobox', { name: 'API key' })
        .locator('option')
        .allTextContents()
      assert.deepEqual(
        keys.map((k) => k.slice(0, 9)),
        ['Any key', 'svc_test_'],
      )

      // Live: the live key's reads, a page of 25 and then the oldest.
      await page.getByText('Live', { exact: true }).click()
      const live = page.getByRole('table', { name: 'Live requests, newest first' }).getByRole('link')
      await waitForCount(live, 25, 'a page of live requests')
      assert.match(page.url(), /environment=live/)
      assert.equal(await live.first().textContent(), 'GET /v1/orders?limit=26')
      await page.getByRole('button', { name: 'Show older requests' }).click()
      await waitForCount(live, 26, 'the older one')
      assert.equal(await live.last().textContent(), 'GET /v1/orders?limit=1')
      await page.getByRole('button', { name: 'Show older requests' }).waitFor({ state: 'hidden' })
    })

    test('a refused request: its body pretty-printed and cut at 16 KB, the error answer beside it, curl to copy', async () => {
      await page.goto(`${origin}/dashboard/requests?environment=test&request_id=${sent.refusedRequestId}`)
      await waitForCount(rows(), 1, 'the request by its id')
      await rows().getByRole('link').click()
      await page.getByRole('heading', { name: 'POST /v1/orders', level: 1 }).waitFor()
      const body = page.getByRole('region', { name: 'Request body' })
      await body.getByText(/^Truncated at 16 KB of 2\d,\d{3} bytes\.$/).waitFor()
      const kept = (await body.getByLabel('Request body').textContent()) ?? ''
      assert.ok(kept.startsWith('{'), kept.slice(0, 40))
      assert.ok(kept.length <= 16_384 && kept.length > 16_000, `${kept.length} characters kept`)
      const answer =
        (await page.getByRole('region', { name: 'Answer' }).getByLabel('Answer').textContent()) ?? ''
      // Pretty-printed: the answer is indented JSON.
      assert.match(answer, /^\{\n {2}"error": \{\n {4}"code": "validation_failed"/)
      await page.getByText(sent.refusedRequestId, { exact: true }).waitFor()
      await assertAccessible(page, 'a refused request')

      const curl = await copyFrom(page.getByRole('button', { name: 'Copy as curl' }))
      assert.match(curl, /^curl -X POST '?http:\/\/api\.test\/v1\/orders/)
      assert.match(curl, /\$SERVICE_API_KEY/)
      assert.ok(!curl.includes(org.testKey), 'never the key')
    })

    test('the order links to the request that created it, and the request back to the order', async () => {
      await page.goto(`${origin}/dashboard/orders/${sent.orderId}`)
      await page.getByRole('heading', { name: `Order ${sent.external}`, level: 1 }).waitFor()
      await page.getByText('Created by request').getByRole('link', { name: 'POST /v1/orders' }).click()
      await page.getByRole('heading', { name: 'POST /v1/orders', level: 1 }).waitFor()
      await page.getByRole('region', { name: 'The request' }).getByText('201', { exact: true }).waitFor()
      const sentBody =
        (await page.getByRole('region', { name: 'Request body' }).getByLabel('Request body').textContent()) ??
        ''
      assert.ok(sentBody.includes(`"external_order_id": "${sent.external}"`), 'the body, indented')
      await page
        .getByRole('region', { name: 'Answer' })
        .getByText('201: successful answers are not kept', { exact: false })
        .waitFor()
      await page.getByRole('link', { name: 'Open the order' }).click()
      await page.getByRole('heading', { name: `Order ${sent.external}`, level: 1 }).waitFor()
    })

    test('a request id pasted into the header search opens that request', async () => {
      const box = page
        .getByRole('search', { name: 'Find anything' })
        .getByLabel('Find an order, endpoint, key or request id')
      await box.fill(sent.refusedRequestId)
      const found = page.getByRole('region', { name: 'Requests' }).getByRole('link', {
        name: 'POST /v1/orders · 422 · test',
      })
      await found.click()
      await page.getByRole('heading', { name: 'POST /v1/orders', level: 1 }).waitFor()
      await page.getByText(sent.refusedRequestId, { exact: true }).waitFor()
    })

    test('a viewer sees a request’s facts, never its bodies', async () => {
      const viewerPage = await pageOf(viewer)
      const line = await t.db
        .selectFrom('api_requests')
        .select('id')
        .where('request_id', '=', sent.refusedRequestId)
        .executeTakeFirstOrThrow()
      await viewerPage.goto(`${origin}/dashboard/requests/${line.id}?environment=test`)
      await viewerPage.getByRole('heading', { name: 'POST /v1/orders', level: 1 }).waitFor()
      await viewerPage
        .getByRole('region', { name: 'Request body' })
        .getByText('Bodies are shown to owners and developers.')
        .waitFor()
      const text = (await viewerPage.locator('main').textContent()) ?? ''
      assert.ok(!text.includes('Refused xxx'), 'no request body')
      assert.ok(!text.includes('"validation_failed"'), 'no answer body')
      await viewerPage.getByText('validation_failed', { exact: true }).waitFor()
      await assertAccessible(viewerPage, 'a request as a viewer')
    })
  })

  /**
   * API keys and Webhooks with a worker delivering to the local HTTPS
   * receiver: a key is shown once and revoked with a confirmation; an
   * endpoint's delivery of an order made through /v1 appears in its log
   * without a reload, opens its attempts and is redelivered and replayed.
   */
  describe('API keys and webhooks', () => {
    let orgId: string
    let viewer: Member
    let page: Page
    let liveKey = ''

    before(async () => {
      ;({ orgId, viewer, page } = await partOrganization('Hooked Prints'))
      await t.startDispatcher({ ca: receiver.ca })
    })

    test('a developer creates a live key (shown once, with a copy button) and revokes another after confirming', async () => {
      const other = await t.createKey(orgId, { environment: 'test' })
      const otherPrefix = (
        await t.db
          .selectFrom('api_keys')
          .select('key_prefix')
          .where('id', '=', other.id)
          .executeTakeFirstOrThrow()
      ).key_prefix
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
      await scopes
        .getByText('POST /v1/orders; orders cannot be changed or cancelled through the API')
        .waitFor()
      assert.doesNotMatch((await scopes.textContent()) ?? '', /cancel orders/i)

      // The environment switch by keyboard: from Test, the arrow key moves to Live.
      await page.getByRole('radio', { name: 'Test' }).focus()
      await page.keyboard.press('ArrowRight')
      // Live chosen.
      await page.getByRole('radio', { name: 'Live', checked: true }).waitFor({ state: 'attached' })
      await page.getByRole('button', { name: 'Create key' }).click()
      const shown = page.getByLabel('API key', { exact: true })
      await shown.waitFor()
      liveKey = (await shown.textContent())!.trim()
      assert.match(liveKey, /^svc_live_[0-9A-Za-z]{43}$/)
      // The button says Copied (for a second) and the clipboard holds the key.
      assert.equal(await copyFrom(page.getByRole('button', { name: 'Copy API key' })), liveKey)
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
        60_000,
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
      await page.goto(`${origin}/dashboard/webhooks?environment=live`)
      await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor()
      await page.getByText('No live endpoints yet.').waitFor()
      await assertAccessible(page, 'Webhooks')

      // An http:// address is refused beside the URL field, with the way to receive webhooks
      // locally (this service's address in the command, as code); the codes for support are folded.
      const urlField = page.getByRole('textbox', { name: /^URL/ })
      await urlField.fill('http://localhost:4242/webhooks')
      await page.getByRole('button', { name: 'Add endpoint' }).click()
      const refused = page.getByRole('alert').filter({ hasText: 'No endpoint was added' })
      await refused.getByText('One field needs a change: its message is beside it.').waitFor()
      assert.equal(await urlField.getAttribute('aria-invalid'), 'true')
      const beside = page.locator(
        `#${(await urlField.getAttribute('aria-describedby'))!.split(' ').find((id) => id.endsWith('-error'))}`,
      )
      assert.match(
        (await beside.textContent())!,
        /^Webhook URLs must use https\. To receive webhooks on your own machine, run /,
      )
      assert.equal(
        await beside.locator('code').textContent(),
        'npx order-intake listen --base-url http://api.test --forward-to http://localhost:4242/webhooks',
      )
      assert.equal(await refused.getByText(/^webhook_url_invalid · request /).isVisible(), false, 'folded')
      await refused.getByText('For support').click()
      await refused.getByText(/^webhook_url_invalid · request \S+$/).waitFor()
      await assertAccessible(page, 'Webhooks with a refused URL')

      await page.getByRole('textbox', { name: /^URL/ }).fill(receiver.url('/orders'))
      await page.getByLabel('Description (optional)').fill('Order desk')
      // No event type at all: said beside the types before anything is sent.
      await page.getByLabel('All event types, new ones included').uncheck()
      await page.getByRole('checkbox', { name: 'order.received', exact: true }).uncheck()
      await page.getByRole('button', { name: 'Add endpoint' }).click()
      await page.getByText('Choose at least one event type, or all').waitFor()
      await page.getByLabel('All event types, new ones included').check()
      await page.getByText('Choose at least one event type, or all').waitFor({ state: 'detached' })
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
      const log = page.getByRole('table', { name: 'Deliveries' })
      const first = log.getByRole('row').filter({ hasText: 'order.received' })
      await first.getByText('succeeded').waitFor() // by polling, no reload
      const eventId = (await first.getByRole('code').textContent())!.trim()
      const atReceiver = () => receiver.received.filter((r) => r.headers['x-service-event-id'] === eventId)
      const receivedOnes = { timeoutMs: 60_000, details: () => `received ${atReceiver().length}` }
      await waitUntil(() => atReceiver().length === 1, `${eventId} at the receiver`, receivedOnes)

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
      await waitForCount(same, 2, 'the redelivery listed')
      await same.filter({ hasText: 'Redelivery' }).getByText('succeeded').waitFor()
      await waitUntil(() => atReceiver().length === 2, 'the redelivery at the receiver', receivedOnes)
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
      await waitForCount(same, 3, 'the replayed delivery listed')
      await same.filter({ hasText: 'Replay' }).getByText('succeeded').waitFor()
      await waitUntil(() => atReceiver().length === 3, 'the replay at the receiver', receivedOnes)
      await assertAccessible(page, 'endpoint after a replay')
    })

    test('a viewer sees keys and webhooks but cannot create a key (no button)', async () => {
      const viewerPage = await pageOf(viewer)
      await viewerPage.goto(`${origin}/dashboard/api-keys`)
      await viewerPage.getByRole('heading', { name: 'API keys', level: 1 }).waitFor()
      await viewerPage.getByRole('table', { name: 'API keys' }).waitFor()
      assert.equal(await viewerPage.getByRole('button', { name: 'Create key' }).count(), 0)
      assert.equal(await viewerPage.getByRole('button', { name: /^Revoke/ }).count(), 0)
      await assertAccessible(viewerPage, 'API keys as a viewer')

      await viewerPage.goto(`${origin}/dashboard/webhooks?environment=live`)
      await viewerPage.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor()
      await viewerPage
        .getByRole('radio', { name: 'Live' })
        .and(viewerPage.locator(':checked'))
        .waitFor({ state: 'attached' })
      assert.equal(await viewerPage.getByRole('button', { name: 'Add endpoint' }).count(), 0)
      await assertAccessible(viewerPage, 'Webhooks as a viewer')
    })
  })

  /**
   * Events as data, with the worker delivering to the receiver: a delivery's
   * payload (pretty-printed) and the headers each attempt sent, with the
   * signature's timestamp, from the delivery log and from the order's
   * timeline (a viewer's without the signatures); and a sample event sent
   * from the endpoint's page.
   */
  describe('webhook payloads, headers and sample events', () => {
    let orgId: string
    let liveKey: string
    let developer: Member
    let viewer: Member
    let page: Page

    before(async () => {
      ;({ orgId, developer, viewer, page } = await partOrganization('Event Data Prints'))
      liveKey = (await t.createKey(orgId, { environment: 'live' })).key
    })

    const received = (eventId: string) =>
      waitUntil(
        () => receiver.received.find((r) => r.headers['x-service-event-id'] === eventId),
        `${eventId} at the receiver`,
        {
          timeoutMs: 60_000,
          details: () =>
            `received: ${receiver.received.map((r) => r.headers['x-service-event-id']).join(', ')}`,
        },
      )

    test('the payload and headers of an order’s delivery, from the log and from the order; a sample event sent from the page', async () => {
      const created = await developer.client.call('POST', '/webhook-endpoints?environment=live', {
        url: receiver.url('/events'),
        enabled_events: ['order.received', 'order.production_completed'],
      })
      assert.equal(created.statusCode, 201, created.body)
      const endpointId = created.json().data.endpoint.id
      const order = await t.api(liveKey, 'POST', '/v1/orders', orderBody())
      assert.equal(order.statusCode, 201, order.body)

      await page.goto(`${origin}/dashboard/webhooks/${endpointId}?environment=live`)
      await page.getByRole('heading', { name: 'Webhook endpoint', level: 1 }).waitFor()
      const log = page.getByRole('table', { name: 'Deliveries' })
      const row = log.getByRole('row').filter({ hasText: 'order.received' })
      await row.getByText('succeeded').waitFor()
      const eventId = (await row.getByRole('code').textContent())!.trim()
      const got = await received(eventId)

      await row.getByRole('button', { name: /^Details of/ }).click()
      const dialog = page.getByRole('dialog', { name: 'Delivery details' })
      const body = dialog.getByLabel('Event payload')
      await body.waitFor()
      // Pretty-printed: the received one-line body, indented.
      assert.equal(await body.textContent(), JSON.stringify(JSON.parse(got.body.toString('utf8')), null, 2))
      const headers = dialog.getByLabel('Headers sent on attempt 1')
      const lines = (await headers.textContent())!.split('\n')
      for (const name of ['x-service-signature', 'webhook-id', 'webhook-timestamp', 'webhook-signature']) {
        assert.ok(
          lines.includes(`${name}: ${got.headers[name]}`),
          `${name} as received:\n${lines.join('\n')}`,
        )
      }
      await dialog.getByText(`t=${got.headers['webhook-timestamp']}`, { exact: true }).waitFor()
      await page.mouse.move(0, 0)
      await assertAccessible(page, 'delivery details')
      await page.keyboard.press('Escape')
      await dialog.waitFor({ state: 'hidden' })

      // A sample of a type the endpoint takes; the list offers only those.
      await page.getByRole('combobox', { name: 'Sample event type' }).click()
      const options = await page.getByRole('option').allTextContents()
      assert.deepEqual(options, ['order.received', 'order.production_completed'])
      await page.getByRole('option', { name: 'order.production_completed' }).click()
      await page.getByRole('button', { name: 'Send sample event' }).click()
      await page.getByRole('status').getByText('Sample order.production_completed queued').waitFor()
      const sampleRow = log.getByRole('row').filter({ hasText: 'order.production_completed' })
      await sampleRow.getByText('succeeded').waitFor()
      const sample = JSON.parse(
        (await received((await sampleRow.getByRole('code').textContent())!.trim())).body.toString('utf8'),
      )
      assert.equal(sample.data.sample, true)
      await sampleRow.getByRole('button', { name: /^Details of/ }).click()
      await dialog.getByLabel('Event payload').getByText('"sample": true').waitFor()
      await page.keyboard.press('Escape')
      await dialog.waitFor({ state: 'hidden' })

      // The same view from the order's timeline.
      await page.goto(`${origin}/dashboard/orders/${order.json().data.order.id}`)
      await page
        .getByRole('button', {
          name: `Payload and headers of order.received to ${receiver.url('/events')}`,
        })
        .click()
      await dialog.getByLabel('Event payload').getByText(`"id": "${eventId}"`).waitFor()
      await dialog.getByLabel('Headers sent on attempt 1').getByText(`webhook-id: ${eventId}`).waitFor()
      await page.mouse.move(0, 0)
      await assertAccessible(page, 'delivery details from the order')

      // A viewer reads the same dialog with the signatures named, not shown.
      const viewerPage = await pageOf(viewer)
      await viewerPage.goto(`${origin}/dashboard/orders/${order.json().data.order.id}`)
      await viewerPage
        .getByRole('button', {
          name: `Payload and headers of order.received to ${receiver.url('/events')}`,
        })
        .click()
      const viewed = viewerPage
        .getByRole('dialog', { name: 'Delivery details' })
        .getByLabel('Headers sent on attempt 1')
      await viewed.getByText(`webhook-id: ${eventId}`).waitFor()
      const viewedLines = (await viewed.textContent())!.split('\n')
      for (const name of ['x-service-signature', 'webhook-signature']) {
        assert.ok(
          viewedLines.includes(`${name}: (hidden: owners and developers only)`),
          viewedLines.join('\n'),
        )
        assert.ok(!viewedLines.includes(`${name}: ${got.headers[name]}`))
      }
    })
  })

  test('no page had a CSP violation or loaded anything from elsewhere; the endpoint pages no console error', () => {
    pages.assertNoCspViolation(8)
    pages.assertNoConsoleErrors()
    pages.assertNothingFromElsewhere(origin)
  })
})
