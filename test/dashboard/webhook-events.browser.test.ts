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
import { loopbackResolver, startReceiver } from '../helpers/https-receiver.ts'
import { waitUntil } from '../helpers/wait.ts'

/**
 * Events as data, in headless Chromium with a worker delivering to a local
 * HTTPS receiver: a delivery's payload (pretty-printed) and the headers each
 * attempt sent, with the signature's timestamp, from the delivery log and
 * from the order's timeline (a viewer's without the signatures); and a sample
 * event sent from the endpoint's page.
 */
describe('webhook payloads, headers and sample events in a browser', {
  skip: browserSkip,
  timeout: 120_000,
}, () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  let developer: Awaited<ReturnType<typeof memberOf>>
  let liveKey: string
  let orgId: string
  let page: Page
  let seen: Awaited<ReturnType<typeof watchPage>>

  before(async () => {
    ;({ t, origin, browser } = await startBrowserApp({
      resolver: loopbackResolver,
      webhookAllowPrivateCidrs: ['127.0.0.0/8'],
    }))
    orgId = (await t.createOrganization('Event Data Prints')).id
    liveKey = (await t.createKey(orgId, { environment: 'live' })).key
    developer = await memberOf(t, orgId, 'developer')
    receiver = await startReceiver()
    await t.startDispatcher({ ca: receiver.ca })
    const context = await signedInContext(browser, developer.client, origin, 30_000)
    page = await context.newPage()
    seen = await watchPage(page)
  })
  after(() => closeAll(browser, t, receiver))

  const received = (eventId: string) =>
    waitUntil(
      () => receiver.received.find((r) => r.headers['x-service-event-id'] === eventId),
      `${eventId} at the receiver`,
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
      assert.ok(lines.includes(`${name}: ${got.headers[name]}`), `${name} as received:\n${lines.join('\n')}`)
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
      .getByRole('button', { name: `Payload and headers of order.received to ${receiver.url('/events')}` })
      .click()
    await dialog.getByLabel('Event payload').getByText(`"id": "${eventId}"`).waitFor()
    await dialog.getByLabel('Headers sent on attempt 1').getByText(`webhook-id: ${eventId}`).waitFor()
    await page.mouse.move(0, 0)
    await assertAccessible(page, 'delivery details from the order')
    assert.deepEqual(seen.cspViolations, [])

    // A viewer reads the same dialog with the signatures named, not shown.
    const viewer = await memberOf(t, orgId, 'viewer')
    const viewerPage = await (await signedInContext(browser, viewer.client, origin, 30_000)).newPage()
    await viewerPage.goto(`${origin}/dashboard/orders/${order.json().data.order.id}`)
    await viewerPage
      .getByRole('button', { name: `Payload and headers of order.received to ${receiver.url('/events')}` })
      .click()
    const viewed = viewerPage
      .getByRole('dialog', { name: 'Delivery details' })
      .getByLabel('Headers sent on attempt 1')
    await viewed.getByText(`webhook-id: ${eventId}`).waitFor()
    const viewedLines = (await viewed.textContent())!.split('\n')
    for (const name of ['x-service-signature', 'webhook-signature']) {
      assert.ok(viewedLines.includes(`${name}: (hidden: owners and developers only)`), viewedLines.join('\n'))
      assert.ok(!viewedLines.includes(`${name}: ${got.headers[name]}`))
    }
  })
})
