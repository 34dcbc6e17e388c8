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
  tabStops,
  waitForCount,
  watchedPages,
} from '../helpers/browser.ts'
import { dashboardClient, memberOf, operatorInvite, PASSWORD, uniqueEmail } from '../helpers/dashboard.ts'
import { startReceiver } from '../helpers/https-receiver.ts'
import { createOrder, PDF, png, uploadFile } from '../helpers/order-files.ts'
import { waitUntil } from '../helpers/wait.ts'
import { resolverWithWrongName } from '../helpers/webhook-targets.ts'

/**
 * The dashboard as a person uses it, in headless Chromium, on one service:
 * an owner accepts the operator's invitation (the one place this file signs
 * in through the pages), signs out and in, invites a developer who joins and
 * sees Members without its actions; the only owner is not offered to remove
 * themselves; and an organization's first day: a live key, an order made
 * through /v1 with it on Orders and Home with its files, a webhook delivery
 * redelivered, a product made from the unmatched SKU. A viewer cannot create
 * a key, and a member of another organization sees none of it. Every page
 * passes axe, is reachable by keyboard, and loads nothing from elsewhere and
 * nothing its CSP refuses.
 */
describe('the dashboard in a browser', { skip: browserSkip, timeout: 900_000 }, () => {
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
    await t.startDispatcher({ ca: receiver.ca })
  })
  after(() => closeAll(pages, browser, t, receiver))

  /** A fresh browser profile (its own cookies), watched. */
  const newPage = async () => pages.open(await desktopContext(browser, 60_000))
  /** A profile signed in as the member (the cookies of its dashboard client), watched. */
  const pageOf = async (member: { client: { cookies: Map<string, string> } }) =>
    pages.open(await signedInContext(browser, member.client, origin, 60_000))

  const nav = (page: Page, section: string) =>
    page
      .getByRole('navigation', { name: 'Dashboard' })
      .getByRole('link', { name: section, exact: true })
      .click()

  /** On the invitation page: sets the password, signs in (landing on Home) and opens Members. */
  async function setPasswordAndOpenMembers(page: Page) {
    await page.getByLabel('New password').fill(PASSWORD)
    await page.getByLabel('Repeat the password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Set password and sign in' }).click()
    // Signing in lands on Home; Members is a section of the navigation.
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor()
    await nav(page, 'Members')
    await page.getByRole('heading', { name: 'Members', level: 1 }).waitFor()
  }

  const startingWith = (text: string) => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`)

  /** The invitation link on this test's origin (the service names PUBLIC_BASE_URL). */
  const linkHere = (url: string) => `${origin}/dashboard/invitation${new URL(url).hash}`

  describe('signing in, Members and Account', () => {
    let orgId: string
    const ownerEmail = uniqueEmail('owner')
    let developerLink = ''
    const developerEmail = uniqueEmail('developer')

    before(async () => {
      orgId = (await t.createOrganization('Browser Prints')).id
    })

    test('an owner accepts the invitation, signs out and in, and invites a developer', async () => {
      const token = await operatorInvite(t, orgId, ownerEmail, 'owner')
      const page = await newPage()
      const errors: string[] = []
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text())
      })
      const failed: string[] = []
      page.on('response', (r) => {
        if (r.status() >= 400) failed.push(`${r.status()} ${new URL(r.url()).pathname}`)
      })
      await page.goto(`${origin}/dashboard/invitation#token=${token}`)
      await page.getByRole('heading', { name: 'Accept your invitation' }).waitFor()
      await page.getByText('Browser Prints').waitFor()
      assert.equal(await page.getByLabel('Email').inputValue(), ownerEmail)
      await assertAccessible(page, 'accept invitation')
      await setPasswordAndOpenMembers(page)
      await page.getByRole('row').filter({ hasText: ownerEmail }).waitFor()
      // Accepted without a console error, and without looking up the consumed invitation again.
      assert.deepEqual(failed, [], 'no lookup of the consumed invitation')
      assert.deepEqual(errors, [], 'no console error')

      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.getByRole('heading', { name: 'Sign in to the dashboard' }).waitFor()
      await assertAccessible(page, 'sign in')
      await page.getByLabel('Email').fill(ownerEmail)
      await page.getByRole('textbox', { name: 'Password', exact: true }).fill('not the password at all')
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.getByRole('alert').getByText('The email or password is incorrect.').waitFor()
      await page.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD)
      await page.getByRole('button', { name: 'Sign in' }).click()
      // Back where the session ended (Members).
      await page.getByRole('heading', { name: 'Members', level: 1 }).waitFor()
      await page.getByRole('cell', { name: startingWith(ownerEmail) }).waitFor()

      const stops = await tabStops(page, 15)
      for (const name of ['Sign out', 'Members', 'Audit log', 'Account']) {
        assert.ok(stops.includes(name), `Tab reaches ${name}: ${stops.join(' | ')}`)
      }

      const invite = page.getByRole('region', { name: 'Invite a member' })
      await invite.getByLabel('Email').fill(developerEmail)
      await invite.getByRole('button', { name: 'Create invitation' }).click()
      const link = page.getByLabel('Invitation link')
      await link.waitFor()
      developerLink = await link.inputValue()
      assert.match(developerLink, /\/dashboard\/invitation#token=\w+$/)
      const pending = page.getByRole('region', { name: 'Pending invitations' })
      await pending.getByText(developerEmail).waitFor()
      await assertAccessible(page, 'members (owner)')

      // A second invitation, revoked after confirming: it leaves the list and its link stops working.
      const revokedEmail = uniqueEmail('revoked')
      await invite.getByLabel('Email').fill(revokedEmail)
      await invite.getByRole('button', { name: 'Create invitation' }).click()
      await pending.getByText(revokedEmail).waitFor()
      const revokedLink = await link.inputValue()
      await pending.getByRole('button', { name: `Revoke the invitation for ${revokedEmail}` }).click()
      const dialog = page.getByRole('dialog', { name: 'Revoke invitation' })
      await dialog.getByText(`Revoke the invitation for ${revokedEmail}?`).waitFor()
      await assertAccessible(page, 'revoke invitation dialog')
      await dialog.getByRole('button', { name: 'Revoke invitation' }).click()
      await dialog.waitFor({ state: 'hidden' })
      await pending.getByText(revokedEmail).waitFor({ state: 'detached' })
      await pending.getByText(developerEmail).waitFor()
      const revokedPage = await newPage()
      await revokedPage.goto(linkHere(revokedLink))
      await revokedPage
        .getByRole('alert')
        .getByText(/unknown, already used, revoked or expired/)
        .waitFor()

      await nav(page, 'Audit log')
      await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor()
      await page.getByRole('cell', { name: developerEmail, exact: true }).first().waitFor()
      await page
        .getByText(/^\S+@\S+ signed in$/)
        .first()
        .waitFor()
      await assertAccessible(page, 'audit log')

      // A second session of the owner elsewhere: signing it out asks first.
      const elsewhere = await dashboardClient(t)
      const signedIn = await elsewhere.call('POST', '/sign-in', { email: ownerEmail, password: PASSWORD })
      assert.equal(signedIn.statusCode, 200, signedIn.body)
      await nav(page, 'Account')
      await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor()
      await page.getByText('This session').waitFor()
      // The browser in words (headless Chromium's User-Agent), the header as sent in its title.
      const sessions = page.getByRole('table', { name: 'Sessions' })
      const browserName = `Chrome ${/HeadlessChrome\/(\d+)/.exec(await page.evaluate(() => navigator.userAgent))![1]} on Linux`
      const thisOne = sessions.getByRole('row').filter({ hasText: 'This session' })
      await thisOne.getByText(browserName, { exact: true }).waitFor()
      assert.equal(
        await thisOne.getByText(browserName, { exact: true }).getAttribute('title'),
        await page.evaluate(() => navigator.userAgent),
      )
      // The test client's session has no browser to name: its header is shown as it came.
      await sessions.getByText('lightMyRequest', { exact: true }).waitFor()
      await assertAccessible(page, 'account')
      await page.getByRole('button', { name: 'Sign out other sessions' }).click()
      const signOut = page.getByRole('dialog', { name: 'Sign out your other sessions?' })
      await signOut
        .getByText(
          'Every other browser signed in to your account is signed out at once and must sign in again with the password; this one stays signed in. Nothing is sent to tell them.',
        )
        .waitFor()
      assert.equal(
        (await elsewhere.call('GET', '/members')).statusCode,
        200,
        'not signed out by the first click',
      )
      await signOut.getByRole('button', { name: 'Sign out 1 other session' }).click()
      await page.getByRole('status').filter({ hasText: '1 other session signed out.' }).waitFor()
      assert.equal((await elsewhere.call('GET', '/members')).statusCode, 401, 'signed out after confirming')
    })

    test('the developer joins and sees Members without its actions', async () => {
      assert.ok(developerLink, 'the owner made the link')
      const page = await newPage()
      await page.goto(linkHere(developerLink))
      await page.getByRole('heading', { name: 'Accept your invitation' }).waitFor()
      await setPasswordAndOpenMembers(page)
      await page.getByRole('cell', { name: startingWith(ownerEmail) }).waitFor()
      await page.getByRole('cell', { name: startingWith(developerEmail) }).waitFor()
      assert.equal(await page.getByRole('button', { name: 'Create invitation' }).count(), 0)
      assert.equal(await page.getByRole('button', { name: /^Remove/ }).count(), 0)
      assert.equal(await page.getByRole('textbox', { name: /^Role of/ }).count(), 0)
      assert.equal(await page.getByRole('columnheader', { name: 'Actions' }).count(), 0)
      await assertAccessible(page, 'members (developer)')

      // The link worked once.
      const second = await newPage()
      await second.goto(linkHere(developerLink))
      await second
        .getByRole('alert')
        .getByText(/unknown, already used, revoked or expired/)
        .waitFor()
    })

    test('the Help menu leads to the API reference, the guides and the request log, at 1280 and 390 px', async () => {
      const member = await memberOf(t, orgId, 'developer')
      const page = await pageOf(member)
      await page.goto(`${origin}/dashboard/home`)
      await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor()
      await page.getByRole('button', { name: 'Help' }).click()
      const menu = page.getByRole('navigation', { name: 'Help' })
      const documents = await menu
        .getByRole('link')
        .evaluateAll((items) =>
          items.flatMap((a) =>
            a.getAttribute('target') === '_blank' ? [[a.textContent, a.getAttribute('href')]] : [],
          ),
        )
      assert.deepEqual(documents, [
        ['API reference', '/docs'],
        ['Dashboard guide', '/docs/guides/dashboard'],
        ['API guide', '/docs/guides/api'],
        ['Webhooks guide', '/docs/guides/webhooks'],
        ['Automation guide', '/docs/guides/automation'],
        ['Client and listen', '/docs/guides/client'],
      ])
      // Every one is a page of the service (no link to nowhere).
      for (const [, href] of documents) {
        const res = await page.request.get(`${origin}${href}`)
        assert.equal(res.status(), 200, href!)
        assert.match(res.headers()['content-type']!, /^text\/html/, href!)
      }
      await assertAccessible(page, 'Help menu')
      await menu.getByRole('link', { name: 'Request log' }).click()
      await page.getByRole('heading', { name: 'Requests', level: 1 }).waitFor()

      // On a phone the menu stays in the header beside the search, within the screen.
      await page.setViewportSize({ width: 390, height: 844 })
      const help = page.getByRole('button', { name: 'Help' })
      await help.click()
      await menu.getByRole('link', { name: 'API reference' }).waitFor()
      const box = (await help.boundingBox())!
      assert.ok(box.x + box.width <= 390, `the Help button ends at ${box.x + box.width} px`)
      const width = await page.evaluate(() => document.documentElement.scrollWidth)
      assert.ok(width <= 390, `the page is ${width} px wide at 390`)
      await assertAccessible(page, 'Help menu at 390 px')
    })

    test('the only owner is not offered to remove themselves; removing a second owner asks first', async () => {
      const otherOrg = (await t.createOrganization('Members Prints')).id
      const owner = await memberOf(t, otherOrg, 'owner')
      const page = await pageOf(owner)
      await page.goto(`${origin}/dashboard/members`)
      const me = page.getByRole('row').filter({ hasText: owner.email })
      await me.waitFor()

      // The only owner: no Remove on the row (the API refuses it with last_owner).
      await me.getByText('Only owner').waitFor()
      assert.equal(await me.getByRole('button', { name: `Remove ${owner.email}` }).count(), 0)
      await assertAccessible(page, 'Members with one owner')

      // A second owner: now either may be removed, oneself included.
      const second = await memberOf(t, otherOrg, 'owner')
      await page.reload()
      await page.getByRole('row').filter({ hasText: second.email }).waitFor()
      await me.getByRole('button', { name: `Remove ${owner.email}` }).waitFor()
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
    })
  })

  test('a forgotten password: the owner issues a reset link after confirming; the member sets a new password with it and is signed out everywhere else', async () => {
    const org = (await t.createOrganization('Reset Prints')).id
    const owner = await memberOf(t, org, 'owner')
    const member = await memberOf(t, org, 'developer')
    const page = await pageOf(owner)
    await page.goto(`${origin}/dashboard/members`)
    const row = page.getByRole('row').filter({ hasText: member.email })
    await row.getByRole('button', { name: `Reset password of ${member.email}` }).click()
    const dialog = page.getByRole('dialog', { name: 'Reset password' })
    await dialog
      .getByText(`every session of the account ends: they are signed out everywhere`, { exact: false })
      .waitFor()
    const issued = () => t.db.selectFrom('password_resets').select('id').execute()
    assert.equal((await issued()).length, 0, 'nothing issued before confirming')
    await dialog.getByRole('button', { name: 'Issue reset link' }).click()
    await dialog.waitFor({ state: 'detached' })
    const link = page.getByLabel('Password reset link', { exact: true })
    const url = (await link.textContent())!
    assert.match(url, /\/dashboard\/password-reset#token=\w{43}$/)
    await page.getByRole('button', { name: 'Copy password reset link' }).waitFor()
    await assertAccessible(page, 'Members with a reset link')

    // The member, on another browser: the link names the account; the new password signs in.
    const there = await newPage()
    await there.goto(`${origin}/dashboard/password-reset${new URL(url).hash}`)
    await there.getByRole('heading', { name: 'Reset your password', level: 1 }).waitFor()
    await there.getByText(`Choose a new password for ${member.email}.`, { exact: false }).waitFor()
    await assertAccessible(there, 'Reset your password')
    await there.getByLabel('New password').fill('a brand new password')
    await there.getByLabel('Repeat the password').fill('a brand new password!')
    await there.getByRole('button', { name: 'Set password and sign in' }).click()
    await there.getByText('The two passwords differ.').waitFor()
    await there.getByLabel('Repeat the password').fill('a brand new password')
    await there.getByRole('button', { name: 'Set password and sign in' }).click()
    await there.getByRole('heading', { name: 'Home', level: 1 }).waitFor()
    assert.equal((await member.client.call('GET', '/members')).statusCode, 401, 'the earlier session ended')
    // On Account, a wrong current password is said beside that field, not only above the form.
    await there.goto(`${origin}/dashboard/account`)
    const password = there.getByRole('region', { name: 'Password' })
    await password.getByLabel('Current password').fill('not the password at all')
    await password.getByLabel(/^New password/).fill('another new password')
    await password.getByLabel('Repeat the new password').fill('another new password')
    await password.getByRole('button', { name: 'Change password' }).click()
    // The message once, beside its field (the alert above points to it).
    await password.getByText('The current password is incorrect.').waitFor()
    assert.equal(await password.getByRole('alert').getByText('The current password is incorrect.').count(), 0)
    await password.getByText('One field needs a change: its message is beside it.').waitFor()

    // Used once: the same link now says why it cannot be used, and what to do.
    const again = await newPage()
    await again.goto(`${origin}/dashboard/password-reset${new URL(url).hash}`)
    await again.getByText('This link cannot be used').waitFor()
    await again.getByText('A reset link works once, for an hour', { exact: false }).waitFor()
    await again.getByRole('link', { name: 'Sign in' }).waitFor()
  })

  /**
   * An organization's first day: the owner creates a live key; an order made
   * through /v1 with that key appears on Orders and Home with its files; a
   * webhook endpoint gets its delivery, which is redelivered; a product made
   * from the unmatched SKU links the item. A viewer cannot create a key, and a
   * member of another organization sees none of it.
   */
  describe('an organization’s first day', () => {
    let orgId: string
    let owner: Awaited<ReturnType<typeof memberOf>>
    let page: Page
    const state = { liveKey: '', orderId: '', external: 'SHOP-FIRST-DAY', eventId: '' }

    before(async () => {
      orgId = (await t.createOrganization('First Day Prints')).id
      owner = await memberOf(t, orgId, 'owner')
      page = await pageOf(owner)
    })

    test('the owner creates a live key, shown once', async () => {
      await page.goto(`${origin}/dashboard/`)
      await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor()
      await nav(page, 'API keys')
      await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor()
      // The key's environment reads Live | Test as everywhere, and by keyboard: from Live the arrow
      // key moves to Test and back. It picks the key's environment only: the dashboard stays live.
      const environments = page.getByRole('radiogroup', { name: 'Environment' })
      assert.deepEqual(
        await environments.getByRole('radio').evaluateAll((r) => r.map((e) => e.getAttribute('value'))),
        ['live', 'test'],
      )
      await page.getByRole('radio', { name: 'Live' }).focus()
      await page.keyboard.press('ArrowRight')
      await page.getByRole('radio', { name: 'Test', checked: true }).waitFor({ state: 'attached' })
      assert.equal(await page.getByRole('status', { name: 'Test mode' }).count(), 0, 'no test-mode banner')
      assert.equal(await page.evaluate(() => Object.values(localStorage).includes('test')), false)
      await page.keyboard.press('ArrowLeft')
      await page.getByRole('radio', { name: 'Live', checked: true }).waitFor({ state: 'attached' })
      // No scope: the form says so beside the scopes and sends nothing.
      const scopes = page.getByRole('group', { name: /^Scopes/ })
      const ticked = scopes.getByRole('checkbox', { checked: true })
      const names: string[] = []
      while ((await ticked.count()) > 0) {
        names.push((await ticked.first().getAttribute('value'))!)
        await ticked.first().uncheck()
      }
      await page.getByRole('button', { name: 'Create key' }).click()
      await page.getByText('Choose at least one scope').waitFor()
      assert.equal((await owner.client.call('GET', '/api-keys')).json().data.length, 0, 'no key made')
      for (const name of names) await scopes.locator(`input[value="${name}"]`).check()
      await page.getByText('Choose at least one scope').waitFor({ state: 'detached' })
      await page.getByRole('button', { name: 'Create key' }).click()
      const shown = page.getByLabel('API key', { exact: true })
      state.liveKey = (await shown.textContent())!.trim()
      assert.match(state.liveKey, /^svc_live_/)
      // The new key is brought into view and its Copy button has the focus.
      const copy = page.getByRole('button', { name: 'Copy API key' })
      await page.waitForFunction(() => document.activeElement?.textContent === 'Copy API key')
      const box = (await copy.boundingBox())!
      const viewport = page.viewportSize()!
      assert.ok(
        box.y >= 0 && box.y + box.height <= viewport.height,
        `the Copy button at ${box.y} px is in view`,
      )
      await page.getByRole('table', { name: 'API keys' }).getByText(owner.email).waitFor()
    })

    test('an order made through /v1 with that key appears on Orders and Home, with its files', async () => {
      assert.ok(state.liveKey, 'the key of the first step')
      await page.goto(`${origin}/dashboard/webhooks?environment=live`)
      await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor()
      await page.getByRole('textbox', { name: /^URL/ }).fill(receiver.url('/first-day'))
      await page.getByRole('button', { name: 'Add endpoint' }).click()
      await page.getByLabel('Signing secret', { exact: true }).waitFor()

      await page.goto(`${origin}/dashboard/orders?environment=live`)
      await page.getByText('No live orders match.').waitFor()
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
      const table = page.getByRole('table', { name: 'Live orders, newest first' })
      await table.getByRole('link', { name: state.external }).waitFor() // by polling, no reload

      await nav(page, 'Home')
      const today = page.getByRole('row', { name: /^Today/ })
      await today.waitFor()
      assert.equal(await today.getByRole('cell').first().innerText(), '1')

      await page.goto(`${origin}/dashboard/orders?environment=live`)
      await table.getByRole('link', { name: state.external }).click()
      await page.getByRole('heading', { name: `Order ${state.external}`, level: 1 }).waitFor()
      const item = page.getByRole('region', { name: 'Item 1: Tote bag' })
      await item.getByRole('cell', { name: 'AL', exact: true }).waitFor()
      const thumb = item.getByRole('img', { name: 'Preview of front.png' })
      await page.waitForFunction(
        (el) => (el as HTMLImageElement).complete && (el as HTMLImageElement).naturalWidth > 0,
        await thumb.elementHandle(),
      )
      await item.getByRole('link', { name: 'proof.pdf' }).waitFor()
      await assertAccessible(page, 'order page')
    })

    test('the endpoint’s delivery appears in its log and is redelivered', async () => {
      assert.ok(state.orderId, 'the order of the second step')
      await receiver.waitFor(1, 60_000)
      await page.goto(`${origin}/dashboard/webhooks?environment=live`)
      await page.getByRole('link', { name: receiver.url('/first-day') }).click()
      await page.getByRole('heading', { name: 'Webhook endpoint', level: 1 }).waitFor()
      const log = page.getByRole('table', { name: 'Deliveries' })
      const first = log.getByRole('row').filter({ hasText: 'order.received' })
      await first.getByText('succeeded').waitFor()
      state.eventId = (await first.getByRole('code').textContent())!.trim()
      await first.getByRole('button', { name: /^Redeliver/ }).click()
      const same = log.getByRole('row').filter({ hasText: state.eventId })
      await waitForCount(same, 2, 'the redelivery listed')
      await same.filter({ hasText: 'Redelivery' }).getByText('succeeded').waitFor()
      await waitUntil(
        () => receiver.received.length === 2,
        'the delivery and its redelivery at the receiver',
        {
          timeoutMs: 60_000,
          details: () => `received ${receiver.received.length}`,
        },
      )
      assert.deepEqual(
        receiver.received.map((r) => JSON.parse(r.body.toString()).id),
        [state.eventId, state.eventId],
      )
    })

    test('a product created from the unmatched SKU links the item', async () => {
      await nav(page, 'Products')
      const unmatched = page.getByRole('table', { name: 'Unmatched SKUs' })
      await unmatched.getByRole('button', { name: 'Create product for TOTE-NATURAL' }).click()
      const form = page.getByRole('region', { name: 'Add a product' })
      await form.getByRole('textbox', { name: 'Name' }).fill('Natural tote')
      await form.getByRole('button', { name: 'Add product' }).click()
      await page.getByRole('status').getByText('It linked 1 existing item').waitFor()
      // Its print specification: each field explained, checked before saving, said in a line after.
      const catalog = page.getByRole('table', { name: 'Products' })
      const row = catalog.getByRole('row').filter({ hasText: 'TOTE-NATURAL' })
      await row.getByText('None set').waitFor()
      await row.getByRole('button', { name: 'Set print specification of TOTE-NATURAL' }).click()
      const spec = page.getByRole('dialog', { name: 'Print specification of TOTE-NATURAL' })
      await spec.getByLabel(/^Height \(mm\)/).fill('400')
      await spec.getByRole('button', { name: 'Save print specification' }).click()
      await spec.getByText('Width must be more than 0 and at most 5000 mm').waitFor()
      await assertAccessible(page, 'the print specification dialog')
      await spec.getByLabel(/^Width \(mm\)/).fill('380')
      await spec.getByLabel(/^Bleed \(mm\)/).fill('3')
      await spec.getByRole('button', { name: 'Save print specification' }).click()
      await spec.waitFor({ state: 'detached' })
      await row.getByText('Every file: 380 × 400 mm, 150 dpi, 3 mm bleed').waitFor()
      await page.goto(`${origin}/dashboard/orders/${state.orderId}`)
      await page.getByRole('region', { name: 'Item 1: Tote bag' }).getByText('Linked to a product').waitFor()

      await nav(page, 'Audit log')
      // Each entry a sentence of what happened.
      for (const sentence of [
        / created live key svc_live_\S+… with /,
        / added (live |test )?webhook endpoint https?:\/\//,
        / redelivered an? \S+ event to https?:\/\//,
        / created product \S+/,
        / set the print specification of product TOTE-NATURAL: 380 × 400 mm, 150 dpi, 3 mm bleed/,
      ]) {
        await page.getByText(sentence).first().waitFor()
      }
    })

    test('a viewer cannot create a key; a member of another organization sees none of it', async () => {
      const viewer = await memberOf(t, orgId, 'viewer')
      const viewerPage = await pageOf(viewer)
      await viewerPage.goto(`${origin}/dashboard/api-keys`)
      await viewerPage.getByRole('table', { name: 'API keys' }).getByText(owner.email).waitFor()
      assert.equal(await viewerPage.getByRole('button', { name: 'Create key' }).count(), 0)

      const stranger = await memberOf(t, (await t.createOrganization('Elsewhere Prints')).id, 'owner')
      const strangerPage = await pageOf(stranger)
      await strangerPage.goto(`${origin}/dashboard/orders?environment=live`)
      await strangerPage.getByText('No live orders match.').waitFor()
      await strangerPage.goto(`${origin}/dashboard/orders/${state.orderId}`)
      await strangerPage.getByRole('alert').waitFor()
      assert.equal(await strangerPage.getByText(state.external).count(), 0)
      for (const [path, empty] of [
        ['/api-keys', 'No keys yet.'],
        ['/products', 'No products yet.'],
      ] as const) {
        await strangerPage.goto(`${origin}/dashboard${path}`)
        await strangerPage.getByText(empty).first().waitFor()
        const text = await strangerPage.locator('main').innerText()
        for (const marker of [owner.email, 'TOTE-NATURAL', 'Natural tote', state.liveKey.slice(0, 17)]) {
          assert.ok(!text.includes(marker), `${path} shows ${marker}`)
        }
      }
      await strangerPage.goto(`${origin}/dashboard/webhooks?environment=live`)
      await strangerPage.getByText('No live endpoints yet.').waitFor()
    })
  })

  test('no page had a CSP violation or loaded anything from elsewhere', () => {
    pages.assertNoCspViolation(12)
    pages.assertNothingFromElsewhere(origin)
  })
})
