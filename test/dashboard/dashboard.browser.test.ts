import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser } from 'playwright-core'
import type { TestApp } from '../helpers/app.ts'
import {
  assertAccessible,
  browserSkip,
  closeAll,
  desktopContext,
  startBrowserApp,
  tabStops,
  watchPage,
} from '../helpers/browser.ts'
import { dashboardClient, operatorInvite, PASSWORD, uniqueEmail } from '../helpers/dashboard.ts'

/**
 * The dashboard as a person uses it, in headless Chromium: an owner accepts
 * the operator's invitation, signs out and in, invites a developer; the
 * developer joins and sees Members without its actions. Every page passes
 * axe (no serious or critical violation), is reachable by keyboard, and
 * loads nothing from elsewhere and nothing its CSP refuses.
 */
describe('the dashboard in a browser', { skip: browserSkip, timeout: 600_000 }, () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  let orgId: string

  before(async () => {
    ;({ t, origin, browser } = await startBrowserApp())
    orgId = (await t.createOrganization('Browser Prints')).id
  })
  after(() => closeAll(browser, t))

  /** A fresh browser profile (its own cookies), with its requests and CSP violations watched. */
  async function newPage() {
    const context = await desktopContext(browser, 120_000)
    const page = await context.newPage()
    return { page, seen: await watchPage(page) }
  }

  const startingWith = (text: string) => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`)

  /** The invitation link on this test's origin (the service names PUBLIC_BASE_URL). */
  const linkHere = (url: string) => `${origin}/dashboard/invitation${new URL(url).hash}`

  const ownerEmail = uniqueEmail('owner')
  let developerLink = ''
  const developerEmail = uniqueEmail('developer')

  test('an owner accepts the invitation, signs out and in, and invites a developer', async () => {
    const token = await operatorInvite(t, orgId, ownerEmail, 'owner')
    const { page, seen } = await newPage()
    await page.goto(`${origin}/dashboard/invitation#token=${token}`)
    await page.getByRole('heading', { name: 'Accept your invitation' }).waitFor()
    await page.getByText('Browser Prints').waitFor()
    assert.equal(await page.getByLabel('Email').inputValue(), ownerEmail)
    await assertAccessible(page, 'accept invitation')
    await page.getByLabel('New password').fill(PASSWORD)
    await page.getByLabel('Repeat the password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Set password and sign in' }).click()
    // Signing in lands on Home; Members is a section of the navigation.
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor()
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Members' }).click()
    await page.getByRole('heading', { name: 'Members', level: 1 }).waitFor()

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

    const stops = await tabStops(page, 13)
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
    const row = await t.db
      .selectFrom('invitations')
      .select('revoked_at')
      .where('email', '=', revokedEmail)
      .executeTakeFirstOrThrow()
    assert.ok(row.revoked_at, 'stored as revoked')
    const other = await browser.newContext()
    const revokedPage = await other.newPage()
    await revokedPage.goto(linkHere(revokedLink))
    await revokedPage
      .getByRole('alert')
      .getByText(/unknown, already used, revoked or expired/)
      .waitFor()
    await other.close()

    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Audit log' }).click()
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
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Account' }).click()
    await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor()
    await page.getByText('This session').waitFor()
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

    assert.deepEqual(seen.cspViolations, [])
    assert.deepEqual(
      seen.requests.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:')),
      [],
    )
    await page.context().close()
  })

  test('the developer joins and sees Members without its actions', async () => {
    assert.ok(developerLink, 'the owner made the link')
    const { page, seen } = await newPage()
    await page.goto(linkHere(developerLink))
    await page.getByRole('heading', { name: 'Accept your invitation' }).waitFor()
    await page.getByLabel('New password').fill(PASSWORD)
    await page.getByLabel('Repeat the password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Set password and sign in' }).click()
    // Signing in lands on Home; Members is a section of the navigation.
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor()
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Members' }).click()
    await page.getByRole('heading', { name: 'Members', level: 1 }).waitFor()
    await page.getByRole('cell', { name: startingWith(ownerEmail) }).waitFor()
    await page.getByRole('cell', { name: startingWith(developerEmail) }).waitFor()
    assert.equal(await page.getByRole('button', { name: 'Create invitation' }).count(), 0)
    assert.equal(await page.getByRole('button', { name: /^Remove/ }).count(), 0)
    assert.equal(await page.getByRole('textbox', { name: /^Role of/ }).count(), 0)
    assert.equal(await page.getByRole('columnheader', { name: 'Actions' }).count(), 0)
    await assertAccessible(page, 'members (developer)')

    // The link worked once.
    const again = await browser.newContext()
    const second = await again.newPage()
    await second.goto(linkHere(developerLink))
    await second
      .getByRole('alert')
      .getByText(/unknown, already used, revoked or expired/)
      .waitFor()
    await again.close()

    assert.deepEqual(seen.cspViolations, [])
    await page.context().close()
  })
})
