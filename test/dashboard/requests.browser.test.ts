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
import { waitUntil } from '../helpers/wait.ts'

/**
 * The request log as members read it, in headless Chromium, after real /v1
 * requests with a test key (an order created, a refused order with a body
 * over 16 KB, a read; and 26 reads with a live key): the list, its
 * environments, its pages and its filters (kept in the address), one
 * request with its body and answer and the curl command to copy, the order
 * page's link to the request that created it, a request id pasted into the
 * header search, and a viewer who sees a request without its bodies. Every page
 * passes axe.
 */
describe('the request log in a browser', { skip: browserSkip, timeout: 120_000 }, () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  let org: Awaited<ReturnType<TestApp['tenant']>>
  let page: Page
  let seen: Awaited<ReturnType<typeof watchPage>>
  const sent = { orderId: '', external: '', refusedRequestId: '', refusedName: '' }

  before(async () => {
    ;({ t, origin, browser } = await startBrowserApp())
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
    const context = await signedInContext(browser, developer.client, origin, 20_000)
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin })
    page = await context.newPage()
    seen = await watchPage(page)
  })
  after(() => closeAll(browser, t))

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
    await waitUntil(async () => (await rows().count()) === 1, 'only the read, by its path')
    assert.equal(await filters.getByRole('textbox', { name: 'Path starts with' }).inputValue(), '/v1/orders/')
    await rows().getByRole('link', { name: /^GET / }).waitFor()

    await filters.getByRole('button', { name: 'Clear filters' }).click()
    await waitUntil(async () => (await rows().count()) === 3, 'all three')
    const texts = await rows().allTextContents()
    assert.match(texts[0]!, new RegExp(`GET /v1/orders/${sent.orderId}.*200`))
    assert.match(texts[1]!, /POST \/v1\/orders.*422.*validation_failed/)
    assert.match(texts[2]!, /POST \/v1\/orders.*201/)
    assert.match(texts[2]!, /svc_test_/, 'the key prefix')
    await assertAccessible(page, 'Requests')

    await filters.getByRole('combobox', { name: 'Status' }).selectOption('4xx')
    await waitUntil(async () => (await rows().count()) === 1, 'only the refused request')
    assert.match(page.url(), /status_class=4xx/)
    await rows().getByText('validation_failed').waitFor()
    await filters.getByRole('button', { name: 'Clear filters' }).click()

    await filters.getByRole('textbox', { name: 'Error code' }).fill('validation_failed')
    await filters.getByRole('button', { name: 'Filter', exact: true }).click()
    assert.match(page.url(), /error_code=validation_failed/)
    await waitUntil(async () => (await rows().count()) === 1, 'by error code')
    await filters.getByRole('button', { name: 'Clear filters' }).click()

    // Before the requests: none. The address keeps the instant (the field shows it in the reader's zone).
    await filters.getByLabel('Until').fill('2026-01-01T00:00')
    await page.getByText('No test requests match.').waitFor()
    const until = await page.evaluate(() => new Date('2026-01-01T00:00').toISOString())
    assert.equal(new URL(page.url()).searchParams.get('created_until'), until)
    await filters.getByRole('button', { name: 'Clear filters' }).click()

    // The key filter offers the test keys only (the live key's requests are another list).
    const keys = await filters.getByRole('combobox', { name: 'API key' }).locator('option').allTextContents()
    assert.deepEqual(
      keys.map((k) => k.slice(0, 9)),
      ['Any key', 'svc_test_'],
    )

    // Live: the live key's reads, a page of 25 and then the oldest.
    await page.getByText('Live', { exact: true }).click()
    const live = page.getByRole('table', { name: 'Live requests, newest first' }).getByRole('link')
    await waitUntil(async () => (await live.count()) === 25, 'a page of live requests')
    assert.match(page.url(), /environment=live/)
    assert.equal(await live.first().textContent(), 'GET /v1/orders?limit=26')
    await page.getByRole('button', { name: 'Show older requests' }).click()
    await waitUntil(async () => (await live.count()) === 26, 'the older one')
    assert.equal(await live.last().textContent(), 'GET /v1/orders?limit=1')
    await page.getByRole('button', { name: 'Show older requests' }).waitFor({ state: 'hidden' })
  })

  test('a refused request: its body pretty-printed and cut at 16 KB, the error answer beside it, curl to copy', async () => {
    await page.goto(`${origin}/dashboard/requests?environment=test&request_id=${sent.refusedRequestId}`)
    await waitUntil(async () => (await rows().count()) === 1, 'the request by its id')
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

    await page.getByRole('button', { name: 'Copy as curl' }).click()
    await page.getByRole('button', { name: 'Copied' }).waitFor()
    const curl = await page.evaluate(() => navigator.clipboard.readText())
    assert.match(curl, /^curl -X POST '?http:\/\/api\.test\/v1\/orders/)
    assert.match(curl, /\$SERVICE_API_KEY/)
    assert.ok(!curl.includes(org.testKey), 'never the key')
    assert.deepEqual(seen.cspViolations, [])
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
    // The developer's browser, signed in as the viewer instead (its cache kept: the same page loads faster).
    const viewer = await memberOf(t, org.orgId, 'viewer')
    const viewerPage = page
    await viewerPage.context().clearCookies()
    await viewerPage
      .context()
      .addCookies([...viewer.client.cookies].map(([name, value]) => ({ name, value, url: origin })))
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
