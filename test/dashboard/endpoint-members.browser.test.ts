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
import { loopbackResolver } from '../helpers/https-receiver.ts'
import { settleDelivery } from '../helpers/webhook-endpoints.ts'

/**
 * A webhook endpoint's page and Members as people use them, in headless
 * Chromium: the rotated secret's Copy button inside its card, pending
 * deliveries with their next try, a failing endpoint's next probe and Retry
 * now, a replay's count before it starts, deletion apart and confirmed by the
 * URL; an invitation accepted without a console error, and no "Remove" on the
 * organization's only owner. No worker runs, so deliveries stay pending.
 */
describe('the endpoint page and Members in a browser', { skip: browserSkip, timeout: 600_000 }, () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  let orgId: string
  let liveKey: string
  const watched: { page: Page; seen: Awaited<ReturnType<typeof watchPage>>; errors: string[] }[] = []

  before(async () => {
    ;({ t, origin, browser } = await startBrowserApp({
      resolver: loopbackResolver,
      webhookAllowPrivateCidrs: ['127.0.0.0/8'],
    }))
    orgId = (await t.createOrganization('Endpoint Prints')).id
    liveKey = (await t.createKey(orgId, { environment: 'live' })).key
  })
  after(() => closeAll(browser, t))

  async function watch(page: Page) {
    const errors: string[] = []
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text())
    })
    watched.push({ page, seen: await watchPage(page), errors })
    return page
  }

  test('an endpoint page: secret rotated within its card, next tries, a replay counted first, deletion typed', async () => {
    const developer = await memberOf(t, orgId, 'developer')
    const url = 'https://webhook.test/endpoint-page'
    const created = await developer.client.call('POST', '/webhook-endpoints?environment=live', { url })
    assert.equal(created.statusCode, 201, created.body)
    const endpointId = created.json().data.endpoint.id
    for (let i = 0; i < 2; i++) {
      assert.equal((await t.api(liveKey, 'POST', '/v1/orders', orderBody())).statusCode, 201)
    }

    const context = await signedInContext(browser, developer.client, origin, 60_000)
    const page = await watch(await context.newPage())
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
    assert.equal((await t.db.selectFrom('webhook_replays').select('id').execute()).length, 0, 'none started')
    await assertAccessible(page, 'replay preview')
    // A changed window drops the count: it is counted again before any replay.
    await replay.getByRole('textbox', { name: 'Since', exact: true }).fill('2099-01-01T00:00')
    await preview.waitFor({ state: 'hidden' })
    await replay.getByRole('button', { name: 'Count events' }).click()
    await preview.getByText('No events match this window').waitFor()
    assert.equal(await replay.getByRole('button', { name: /^Replay \d/ }).count(), 0)
    await replay.getByRole('textbox', { name: 'Since', exact: true }).fill('2026-01-01T00:00')
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
    await context.close()
  })

  test('a failing endpoint: its next probe, the deliveries waiting for it, and Retry now (not for a viewer)', async () => {
    const developer = await memberOf(t, orgId, 'developer')
    const viewer = await memberOf(t, orgId, 'viewer')
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

    const context = await signedInContext(browser, developer.client, origin, 60_000)
    const page = await watch(await context.newPage())
    await page.goto(`${origin}/dashboard/webhooks/${endpointId}?environment=live`)
    const probe = page.getByRole('region', { name: 'Deliveries waiting for the next probe' })
    await probe
      .getByText(/The endpoint is failing: its deliveries wait for its next probe, in (\d+ seconds|1 minute)/)
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
    await rows.last().getByText('Waits for the endpoint’s probe, due now (the endpoint is failing)').waitFor()
    const audit = await developer.client.call('GET', '/audit-log?action=webhook_endpoint.retried_now')
    assert.equal(audit.json().data.length, 1)
    await context.close()

    // A viewer reads the same, without the button.
    const viewing = await signedInContext(browser, viewer.client, origin, 60_000)
    const viewerPage = await watch(await viewing.newPage())
    await viewerPage.goto(`${origin}/dashboard/webhooks/${endpointId}?environment=live`)
    const seen = viewerPage.getByRole('region', { name: 'Deliveries waiting for the next probe' })
    await seen.getByText(/its deliveries wait for its probe, due now/).waitFor()
    assert.equal(await seen.getByRole('button', { name: 'Retry now' }).count(), 0)
    await viewing.close()
  })

  test('an owner accepts an invitation without a console error and is not offered to remove themselves', async () => {
    const otherOrg = (await t.createOrganization('Members Prints')).id
    const email = uniqueEmail('owner')
    const token = await operatorInvite(t, otherOrg, email, 'owner')
    const context = await desktopContext(browser, 60_000)
    const page = await watch(await context.newPage())
    const failed: string[] = []
    page.on('response', (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${new URL(r.url()).pathname}`)
    })
    await page.goto(`${origin}/dashboard/invitation#token=${token}`)
    await page.getByLabel('New password').fill(PASSWORD)
    await page.getByLabel('Repeat the password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Set password and sign in' }).click()
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor()
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Members' }).click()
    const me = page.getByRole('row').filter({ hasText: email })
    await me.waitFor()
    assert.deepEqual(failed, [], 'no lookup of the consumed invitation')

    // The only owner: no Remove on the row (the API refuses it with last_owner).
    await me.getByText('Only owner').waitFor()
    assert.equal(await me.getByRole('button', { name: `Remove ${email}` }).count(), 0)
    await assertAccessible(page, 'Members with one owner')

    // A second owner: now either may be removed, oneself included.
    const second = await memberOf(t, otherOrg, 'owner')
    await page.reload()
    await page.getByRole('row').filter({ hasText: second.email }).waitFor()
    await me.getByRole('button', { name: `Remove ${email}` }).waitFor()
    // Removing asks first, saying who learns of it; only confirming removes.
    const secondRow = page.getByRole('row').filter({ hasText: second.email })
    await secondRow.getByRole('button', { name: `Remove ${second.email}` }).click()
    const remove = page.getByRole('dialog', { name: 'Remove member' })
    await remove
      .getByText(
        `Remove ${second.email}? Their account ends now and every session of it with it: they are signed out at once, and no message is sent to them.`,
        { exact: false },
      )
      .waitFor()
    assert.equal((await second.client.call('GET', '/members')).statusCode, 200, 'still a member')
    await remove.getByRole('button', { name: 'Remove member' }).click()
    await secondRow.waitFor({ state: 'detached' })
    assert.equal((await second.client.call('GET', '/members')).statusCode, 401, 'signed out')
    await context.close()
  })

  test('no page had a console error or a CSP violation', () => {
    assert.equal(watched.length, 4)
    for (const { page, seen, errors } of watched) {
      assert.deepEqual(seen.cspViolations, [], page.url())
      assert.deepEqual(errors, [], page.url())
    }
  })
})
