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
import { memberOf, operatorOf, uniqueEmail } from '../helpers/dashboard.ts'
import { assertError } from '../helpers/errors.ts'
import { startReceiver } from '../helpers/https-receiver.ts'
import { createOrder } from '../helpers/order-files.ts'
import { waitUntil } from '../helpers/wait.ts'
import { resolverWithWrongName } from '../helpers/webhook-targets.ts'

interface Envelope {
  id: string
  type: string
  created_at: string
  data: Record<string, unknown>
}

/**
 * The operator's console in headless Chromium, with a webhook worker
 * delivering to a local HTTPS receiver: an operator (invited by the operator
 * token) moves a live order with two items from pending to completed item by
 * item on the Production board, each action showing the events it recorded,
 * and the organization's receiver gets exactly the events the reference lists
 * for it, in the order they were recorded. Every console page passes axe; a
 * member can open none of it.
 */
describe('the operator console in a browser', { skip: browserSkip, timeout: 600_000 }, () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  let orgId: string
  let liveKey: string
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  let operator: Awaited<ReturnType<typeof operatorOf>>
  let page: Page
  let seen: Awaited<ReturnType<typeof watchPage>>

  before(async () => {
    ;({ t, origin, browser } = await startBrowserApp({
      resolver: resolverWithWrongName,
      webhookAllowPrivateCidrs: ['127.0.0.0/8'],
    }))
    orgId = (await t.createOrganization('Console Prints')).id
    liveKey = (await t.createKey(orgId, { environment: 'live' })).key
    receiver = await startReceiver()
    await t.startDispatcher({ ca: receiver.ca })
    const endpoint = await t.api(liveKey, 'POST', '/v1/webhook-endpoints', { url: receiver.url('/console') })
    assert.equal(endpoint.statusCode, 201, endpoint.body)
    operator = await operatorOf(t)
    const context = await signedInContext(browser, operator.client, origin)
    page = await context.newPage()
    seen = await watchPage(page)
  })
  after(() => closeAll(browser, t, receiver))

  const received = () => receiver.received.map((r) => JSON.parse(r.body.toString()) as Envelope)

  test("the operator's shell shows the console; Organizations lists live counts and webhook health", async () => {
    await createOrder(t, liveKey, orderBody())
    await page.goto(`${origin}/dashboard/`)
    await page.getByRole('heading', { name: 'Organizations', level: 1 }).waitFor()
    const nav = page.getByRole('navigation', { name: 'Dashboard' })
    assert.deepEqual(await nav.getByRole('link').allInnerTexts(), [
      'Organizations',
      'Production',
      'Shop orders',
      'Statistics',
      'Billing',
      'Operators',
      'Audit log (platform)',
      'Account',
    ])
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

  test('an order with two items goes from pending to completed item by item; the receiver gets exactly the reference events, in order', async () => {
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
    await waitUntil(
      () => page.getByRole('radio', { name: /^In production/ }).isChecked(),
      'In production chosen',
    )
    await row.waitFor()
    await act(`Complete item Mug: ${ref}`, 'order_item.completed')
    await act(`Complete item Card: ${ref}`, 'order_item.completed')
    await row.getByText('done').nth(1).waitFor()
    await act(`Mark completed: ${ref}`, 'order.production_completed')
    await page.getByRole('radio', { name: /^In production/ }).focus()
    await page.keyboard.press('ArrowRight')
    await waitUntil(() => page.getByRole('radio', { name: /^Completed/ }).isChecked(), 'Completed chosen')
    await row.getByText('Completed', { exact: true }).waitFor()

    await receiver.waitFor(5)
    const items = await t.db
      .selectFrom('order_items')
      .select(['id', 'name'])
      .where('order_id', '=', order.id)
      .orderBy('position')
      .execute()
    const expected: [string, string | undefined][] = [
      ['order.received', undefined],
      ['order.production_started', undefined],
      ['order_item.completed', items[0]!.id],
      ['order_item.completed', items[1]!.id],
      ['order.production_completed', undefined],
    ]
    const stored = await t.db
      .selectFrom('events')
      .select('id')
      .where('order_id', '=', order.id)
      .orderBy('created_at')
      .orderBy('id')
      .execute()
    // Nothing more arrives (no double event), and each arrived once.
    await new Promise((resolve) => setTimeout(resolve, 1000))
    const got = received().filter((e) => e.data.order_id === order.id)
    assert.equal(got.length, 5, JSON.stringify(got.map((e) => e.type)))
    const byRecording = [...got].sort((a, b) => Number(a.data.sequence) - Number(b.data.sequence))
    assert.deepEqual(
      byRecording.map((e) => [e.type, e.data.order_item_id as string | undefined]),
      expected,
    )
    assert.deepEqual(
      byRecording.map((e) => e.id),
      stored.map((e) => e.id),
    )
    assert.equal(byRecording[1]!.data.production_status, 'in_progress')
    assert.equal(byRecording[4]!.data.production_status, 'completed')
  })

  test('a second operator acting on a stale page gets a conflict in words, and nothing is sent', async () => {
    const body = orderBody()
    const order = await createOrder(t, liveKey, body)
    await page.goto(`${origin}/dashboard/operator/production?organization_id=${orgId}`)
    const row = page.getByRole('row').filter({ hasText: body.external_order_id })
    await row.waitFor()
    // Another operator starts it first (the page has not polled yet).
    const other = await operatorOf(t)
    const production = await t.db
      .selectFrom('production_orders')
      .select('id')
      .where('order_id', '=', order.id)
      .executeTakeFirstOrThrow()
    const first = await other.client.call('POST', `/operator/production-orders/${production.id}/status`, {
      status: 'in_progress',
      expected_status: 'pending',
    })
    assert.equal(first.statusCode, 200, first.body)
    await page.getByRole('button', { name: `Cancel order: ${body.external_order_id}` }).click()
    await page
      .getByRole('dialog', { name: `Cancel order ${body.external_order_id}?` })
      .getByRole('button', { name: 'Cancel the order' })
      .click()
    const alert = page.getByRole('alert').filter({ hasText: 'Changed meanwhile' })
    await alert.waitFor()
    await alert.getByText('its production status is now in_progress').waitFor()
    const events = await t.db.selectFrom('events').select('type').where('order_id', '=', order.id).execute()
    assert.deepEqual(events.map((e) => e.type).sort(), ['order.production_started', 'order.received'])
  })

  test('Mark failed, Cancel order and Reopen order ask first, saying what happens and who is told; only confirming acts', async () => {
    const body = orderBody()
    const ref = body.external_order_id
    const order = await createOrder(t, liveKey, body)
    const stored = () =>
      t.db
        .selectFrom('production_orders')
        .select(['id', 'status'])
        .where('order_id', '=', order.id)
        .executeTakeFirstOrThrow()
    const events = async () =>
      (
        await t.db
          .selectFrom('events')
          .select('type')
          .where('order_id', '=', order.id)
          .orderBy('created_at')
          .orderBy('id')
          .execute()
      ).map((e) => e.type)
    const started = await operator.client.call(
      'POST',
      `/operator/production-orders/${(await stored()).id}/status`,
      { status: 'in_progress', expected_status: 'pending' },
    )
    assert.equal(started.statusCode, 200, started.body)
    const board = (status: string) =>
      page.goto(`${origin}/dashboard/operator/production?organization_id=${orgId}&status=${status}`)
    const row = page.getByRole('row').filter({ hasText: ref })
    const outcome = page.getByRole('status').filter({ hasText: 'Recorded' })
    const unchanged = async (status: string, types: string[]) => {
      assert.equal((await stored()).status, status)
      assert.deepEqual(await events(), types)
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
    await waitUntil(
      async () =>
        (await page.evaluate(() => document.activeElement?.textContent)) === 'Keep it in production',
      'focus on the button that keeps the order as it is',
    )
    await waitUntil(
      async () => (await fail.evaluate((el) => getComputedStyle(el).opacity)) === '1',
      'the dialog fully shown',
    )
    await assertAccessible(page, 'Mark failed dialog')
    await page.keyboard.press('Escape')
    await fail.waitFor({ state: 'hidden' })
    await waitUntil(
      () => markFailed.evaluate((el) => el === document.activeElement),
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

  test('Shop orders: created in the form, marked as producing no events', async () => {
    await page.goto(`${origin}/dashboard/operator/shop-orders`)
    await page.getByRole('heading', { name: 'Shop orders', level: 1 }).waitFor()
    await page.getByText('Shop orders produce no events').waitFor()
    await assertAccessible(page, 'Shop orders')
    await page.getByRole('combobox', { name: /^Organization/ }).click()
    await page.getByRole('option', { name: 'Console Prints' }).click()
    await page.getByLabel('Shop order id (external_order_id)').fill('SHOP-1001')
    await page.getByLabel('Customer name').fill('Grace Hopper')
    await page.getByLabel('Customer email').fill('grace@example.com')
    await page.getByLabel('Total amount').fill('24.50')
    await page.getByLabel('Item 1 name').fill('Poster')
    await page.getByRole('button', { name: 'Create shop order' }).click()
    const done = page.getByRole('status').filter({ hasText: 'Shop order created' })
    await done.waitFor()
    await done.getByText('Events recorded: none').waitFor()
    await assertAccessible(page, 'Shop orders after creating one')
    const row = await t.db
      .selectFrom('orders')
      .select(['id', 'source', 'environment'])
      .where('external_order_id', '=', 'SHOP-1001')
      .executeTakeFirstOrThrow()
    assert.deepEqual([row.source, row.environment], ['shop', 'live'])
    assert.deepEqual(
      await t.db.selectFrom('events').select('id').where('order_id', '=', row.id).execute(),
      [],
    )
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
    const row = await t.db
      .selectFrom('operator_invitations')
      .select('revoked_at')
      .where('email', '=', email)
      .executeTakeFirstOrThrow()
    assert.ok(row.revoked_at, 'stored as revoked')

    await accounts.getByRole('button', { name: `Remove ${other.email}` }).click()
    const remove = page.getByRole('dialog', { name: 'Remove operator' })
    await remove.getByText(`Remove ${other.email}? Every session`).waitFor()
    // axe reads colours as drawn: wait for the dialog's fade-in to end.
    await waitUntil(
      async () => (await remove.evaluate((el) => getComputedStyle(el).opacity)) === '1',
      'the dialog fully shown',
    )
    await assertAccessible(page, 'Remove operator dialog')
    await remove.getByRole('button', { name: 'Remove operator' }).click()
    await page
      .getByRole('status')
      .filter({ hasText: `Removed ${other.email}: 1 session ended.` })
      .waitFor()
    await accounts.getByRole('row').filter({ hasText: other.email }).waitFor({ state: 'detached' })
    assertError(await other.client.call('GET', '/operator/operators'), 401, 'session_required')
    assert.deepEqual(seen.cspViolations, [])
  })

  test('a member cannot open the console: the API answers 403 and the pages send it home', async () => {
    const member = await memberOf(t, orgId, 'owner')
    assertError(await member.client.call('GET', '/operator/organizations'), 403, 'role_required')
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
    await waitUntil(() => watched.requests.some((url) => url.includes('/dashboard/api/home')), 'home loaded')
    assert.ok(!watched.requests.some((url) => url.includes('/dashboard/api/operator')), 'no console API call')
    await context.close()
  })
})
