import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import type { TestApp } from '../helpers/app.ts'
import { assertAccessible, browserSkip, closeAll, startBrowserApp, watchPage } from '../helpers/browser.ts'

/**
 * /docs in a real browser (headless Chromium), one page for the whole file:
 * the reference renders the service's OpenAPI document, the guides are a
 * click away, nothing is fetched from anywhere but the service itself, and
 * axe finds nothing serious. What the pages contain is docs.pages.test.ts's.
 */
describe('the documentation in a browser', { skip: browserSkip, timeout: 300_000 }, () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  let context: BrowserContext
  let page: Page
  let seen: Awaited<ReturnType<typeof watchPage>>
  const errors: string[] = []
  const missing: string[] = []

  before(async () => {
    ;({ t, origin, browser } = await startBrowserApp())
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
    // Chromium on two shared cores: the reference's renderer takes seconds to start.
    context.setDefaultTimeout(60_000)
    page = await context.newPage()
    seen = await watchPage(page)
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text())
    })
    page.on('response', (r) => {
      if (r.status() >= 400) missing.push(`${r.status()} ${r.url()}`)
    })
  })
  after(() => closeAll(context, browser, t))

  const foreign = (requests: string[]) => requests.filter((url) => new URL(url).origin !== origin)

  test('/docs at 1280 px renders the operations of the OpenAPI document: no console error, CSP violation or 404, as wide as the window, codes whole, nothing from elsewhere, axe', async () => {
    await page.goto(`${origin}/docs`)
    await page
      .getByRole('link', { name: /^Create an order/ })
      .first()
      .waitFor()
    // The webhooks' entries (long sentences) are the last the renderer lays out.
    await page.getByText('order.updated', { exact: false }).first().waitFor()

    assert.deepEqual(seen.cspViolations, [], 'not even the bundle probing eval')
    assert.deepEqual(errors, [])
    assert.deepEqual(missing, [])
    assert.ok(seen.requests.includes(`${origin}/docs/assets/favicon.svg`), 'the icon is our own file')
    assert.ok(seen.requests.includes(`${origin}/v1/openapi.json`), 'the reference loads the document')
    const width = await page.evaluate(() => document.documentElement.scrollWidth)
    assert.ok(width <= 1280, `the page is ${width} px wide in a 1280 px window`)

    // The error-code table: each code and status on one line, whole, the description readable.
    const table = page.locator('table').filter({ hasText: 'invalid_api_key' }).first()
    await table.scrollIntoViewIfNeeded()
    const row = table.getByRole('row').filter({ hasText: 'invalid_api_key' })
    const cells = await row.getByRole('cell').evaluateAll((tds) =>
      tds.map((td) => {
        // One box per line a text node covers.
        const text = document.createTreeWalker(td, NodeFilter.SHOW_TEXT).nextNode()
        const range = document.createRange()
        if (text) range.selectNodeContents(text)
        return {
          text: td.textContent?.trim() ?? '',
          lines: range.getClientRects().length,
          width: td.clientWidth,
        }
      }),
    )
    assert.equal(cells[0]?.text, 'invalid_api_key')
    assert.equal(cells[1]?.text, '401')
    for (const cell of cells.slice(0, 2)) assert.equal(cell.lines, 1, `${cell.text} on one line`)
    assert.ok(cells[2]!.width >= 150, `the description column is ${cells[2]!.width} px wide`)
    // As loaded, before a reader opens an operation.
    await assertAccessible(page, '/docs')

    // Operations as a reader finds them: the sidebar entry, then its section.
    await page
      .getByRole('link', { name: /^Create an order/ })
      .first()
      .click()
    await page
      .getByRole('heading', { name: /^Create an order/ })
      .first()
      .waitFor()
    await page.getByText('/v1/orders', { exact: true }).first().waitFor()
    // Another operation, by its path (summaries may be reworded).
    await page.getByText('/v1/ping', { exact: true }).first().waitFor()
    // The "Test request" client is off: its requests would go through a remote proxy.
    assert.equal(await page.getByRole('button', { name: /test request/i }).count(), 0)

    assert.deepEqual(foreign(seen.requests), [])
    assert.deepEqual(seen.cspViolations, [])
    assert.deepEqual(errors, [])
  })

  test('a guide is a click away from the reference, and its links lead on; the guides pass axe', async () => {
    await page.goto(`${origin}/docs`)
    const nav = page.getByRole('navigation', { name: 'Documentation' })
    await nav.getByRole('link', { name: 'Webhooks' }).click()
    await page.waitForURL(`${origin}/docs/guides/webhooks`)
    await page.getByRole('heading', { level: 1 }).first().waitFor()
    assert.equal(await nav.getByRole('link', { name: 'Webhooks' }).getAttribute('aria-current'), 'page')
    await assertAccessible(page, '/docs/guides/webhooks')

    // A link of the README to a section of another guide ("... is in docs/operations.md").
    await nav.getByRole('link', { name: 'Introduction' }).click()
    await page.waitForURL(`${origin}/docs/guides/introduction`)
    await page.getByRole('heading', { level: 1 }).first().waitFor()
    await assertAccessible(page, '/docs/guides/introduction')
    await page.locator('a[href$="/docs/guides/operations#configuration"]').first().click()
    await page.waitForURL(`${origin}/docs/guides/operations#configuration`)
    assert.ok(
      await page.evaluate(() => document.getElementById('configuration')?.textContent === 'Configuration'),
      'the anchor leads to its heading',
    )
    await nav.getByRole('link', { name: 'API reference' }).click()
    await page.waitForURL(`${origin}/docs`)

    await page.goto(`${origin}/docs/guides/decisions`)
    await page.getByRole('heading', { level: 1 }).first().waitFor()
    await assertAccessible(page, '/docs/guides/decisions')

    assert.deepEqual(foreign(seen.requests), [])
    assert.deepEqual(seen.cspViolations, [])
  })
})
