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
  watchPage,
} from '../helpers/browser.ts'
import { PASSWORD, uniqueEmail } from '../helpers/dashboard.ts'

/**
 * An operator account in the dashboard, in headless Chromium: it accepts the
 * operator token's invitation on the invitation page, signs in on the sign-in
 * page, and the shell shows it the console and Account; member pages send it
 * to the console.
 */
describe('an operator account in a browser', { skip: browserSkip, timeout: 600_000 }, () => {
  let t: TestApp
  let browser: Browser
  let origin: string

  before(async () => {
    ;({ t, origin, browser } = await startBrowserApp())
  })
  after(() => closeAll(browser, t))

  test('accepts the invitation, sees the console and Account, signs out and in again', async () => {
    const email = uniqueEmail('operator')
    const invited = await t.admin('POST', '/admin/v1/operators/invitations', { email })
    assert.equal(invited.statusCode, 201, invited.body)
    const context = await desktopContext(browser, 120_000)
    const page = await context.newPage()
    const seen = await watchPage(page)

    await page.goto(`${origin}/dashboard/invitation${new URL(invited.json().data.url).hash}`)
    await page.getByRole('heading', { name: 'Accept your invitation' }).waitFor()
    await page.getByText('You are invited as an operator of the platform.').waitFor()
    await assertAccessible(page, 'operator invitation')
    await page.getByLabel('New password').fill(PASSWORD)
    await page.getByLabel('Repeat the password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Set password and sign in' }).click()

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
    await nav.getByRole('link', { name: 'Account' }).click()
    await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor()
    await page.getByText(`${email} · operator of the platform`).waitFor()
    await assertAccessible(page, 'operator account')

    // A member page's address leads to the console, without calling the member API.
    await page.goto(`${origin}/dashboard/members`)
    await page.getByRole('heading', { name: 'Organizations', level: 1 }).waitFor()
    assert.ok(!seen.requests.some((url) => url.includes('/dashboard/api/members')), 'no member API call')

    await page.getByRole('banner').getByRole('button', { name: 'Sign out', exact: true }).click()
    await page.getByRole('heading', { name: 'Sign in to the dashboard' }).waitFor()
    await page.getByLabel('Email').fill(email)
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('heading', { name: 'Organizations', level: 1 }).waitFor()
    assert.deepEqual(seen.cspViolations, [])
    await context.close()
  })
})
