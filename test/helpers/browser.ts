import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import axe from 'axe-core'
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core'
import { startOrderChangeFolding } from '../../src/modules/orders/changes/changes.folding.ts'
import { createTestApp, type TestApp } from './app.ts'
import { waitUntil } from './wait.ts'

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it). */
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium'
const CI = process.env.CI === 'true' || process.env.CI === '1'

/**
 * The `skip` option of a browser test: skipped, with the reason, only when
 * Chromium is missing outside CI. Under CI the test runs and fails instead.
 */
export const CHROMIUM_MISSING = `Chromium is not installed at ${CHROMIUM} (apt-get install -y chromium); browser tests skipped`
export const browserSkip = !CI && !existsSync(CHROMIUM) ? CHROMIUM_MISSING : false

/**
 * Chromium's options: as root it needs --no-sandbox; the rest keeps it from
 * reaching for Google's hosts, which this machine's closed network refuses.
 */
export const CHROMIUM_OPTIONS = {
  executablePath: CHROMIUM,
  args: [
    '--no-sandbox',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
  ],
}

/** Where scripts/test.ts's one Chromium for the whole run listens (a Playwright browser server). */
export const BROWSER_ENDPOINT_ENV = 'TEST_BROWSER_WS_ENDPOINT'

/**
 * The run's one Chromium, which scripts/test.ts serves to every browser file
 * (closing it only disconnects this file); a browser file never launches one
 * of its own.
 */
export async function runBrowser(): Promise<Browser> {
  const endpoint = process.env[BROWSER_ENDPOINT_ENV]
  if (!endpoint) {
    throw new Error(
      existsSync(CHROMIUM)
        ? `no browser for the run (${BROWSER_ENDPOINT_ENV}): run browser tests through npm test`
        : `Chromium is required under CI but missing at ${CHROMIUM}`,
    )
  }
  const browser = await chromium.connect(endpoint)
  // Every profile of the file (browser.newPage makes one too) is watched for console warnings.
  const newContext = browser.newContext.bind(browser)
  browser.newContext = async (options) => watchConsoleWarnings(await newContext(options))
  return browser
}

/**
 * Warnings that Chromium itself logs, not the page, allowed by their exact
 * text (each with why). A page's own warning is fixed in the product instead.
 */
const CHROMIUM_WARNINGS = new Set<string>([])

/** Every console warning of the file's pages, `URL: text`, for closeAll to fail on. */
const consoleWarnings: string[] = []

/** Records the console warnings of the profile's pages (runBrowser's profiles all are). */
export function watchConsoleWarnings(context: BrowserContext): BrowserContext {
  context.on('console', (m) => {
    if (m.type() === 'warning' && !CHROMIUM_WARNINGS.has(m.text())) {
      consoleWarnings.push(`${m.page()?.url() ?? m.location().url}: ${m.text()}`)
    }
  })
  return context
}

/** No page of the file logged a console warning (closeAll checks it last). */
export function assertNoConsoleWarnings() {
  assert.deepEqual(consoleWarnings, [], 'console warnings of the pages')
}

/**
 * A browser test's `before`: a test app listening on a free port of 127.0.0.1,
 * its origin, and Chromium. The test's `after` closes them with closeAll.
 */
export async function startBrowserApp(
  options?: Parameters<typeof createTestApp>[0],
): Promise<{ t: TestApp; origin: string; browser: Browser }> {
  const t = await createTestApp(options)
  // As the service does: orders folded in, and their files measured, in the background.
  const folding = startOrderChangeFolding({ db: t.db, onError: () => {} })
  const preflight = t.services.preflight.start({ onError: () => {} })
  const close = t.close
  t.close = async () => {
    await preflight.stop()
    await folding.stop()
    await close()
  }
  try {
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    const origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
    return { t, origin, browser: await runBrowser() }
  } catch (error) {
    await t.close()
    throw error
  }
}

/**
 * Closes, in order, what a test's `before` opened (what it never got to is
 * skipped), then fails if any page logged a console warning: a browser file
 * passes only when its pages warned of nothing.
 */
export async function closeAll(...opened: ({ close(): Promise<unknown> } | undefined)[]): Promise<void> {
  for (const o of opened) await o?.close()
  assertNoConsoleWarnings()
}

export interface CspViolation {
  directive: string
  blocked: string
  source: string
}

/**
 * Every request a page's context makes (blocked ones included) and every
 * Content-Security-Policy violation its documents report.
 */
export async function watchPage(page: Page): Promise<{ requests: string[]; cspViolations: CspViolation[] }> {
  const requests: string[] = []
  const cspViolations: CspViolation[] = []
  page.context().on('request', (request) => requests.push(request.url()))
  await page.exposeBinding('reportCspViolation', (_source, violation: CspViolation) => {
    cspViolations.push(violation)
  })
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      const report = (globalThis as unknown as { reportCspViolation: (v: CspViolation) => void })
        .reportCspViolation
      report({ directive: e.effectiveDirective, blocked: e.blockedURI, source: e.sourceFile })
    })
  })
  return { requests, cspViolations }
}

/**
 * The pages a browser file opens, each in a browser profile of its own and
 * watched (watchPage), for the file's last test to check. close() closes the
 * profiles (closeAll takes it).
 */
export function watchedPages() {
  const contexts: BrowserContext[] = []
  const watched: { page: Page; seen: Awaited<ReturnType<typeof watchPage>>; consoleErrors?: string[] }[] = []
  return {
    /**
     * A new page of the profile, watched; with `noConsoleErrors`, the errors
     * its console logs are kept for assertNoConsoleErrors. The profile is
     * closed with the others.
     */
    async open(context: BrowserContext, options: { noConsoleErrors?: boolean } = {}): Promise<Page> {
      contexts.push(context)
      const page = await context.newPage()
      let consoleErrors: string[] | undefined
      if (options.noConsoleErrors) {
        const errors: string[] = []
        page.on('console', (m) => {
          if (m.type() === 'error') errors.push(m.text())
        })
        consoleErrors = errors
      }
      watched.push({ page, seen: await watchPage(page), consoleErrors })
      return page
    },
    /** `count` pages were opened, and none had a CSP violation. */
    assertNoCspViolation(count: number) {
      assert.equal(watched.length, count)
      for (const { page, seen } of watched) assert.deepEqual(seen.cspViolations, [], page.url())
    },
    /** The pages opened with `noConsoleErrors` logged no console error. */
    assertNoConsoleErrors() {
      for (const { page, consoleErrors } of watched) {
        if (consoleErrors) assert.deepEqual(consoleErrors, [], page.url())
      }
    },
    /** No page requested anything but from `origin` and data: URLs. */
    assertNothingFromElsewhere(origin: string) {
      for (const { page, seen } of watched) {
        assert.deepEqual(
          seen.requests.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:')),
          [],
          page.url(),
        )
      }
    },
    async close() {
      for (const context of contexts) await context.close()
    },
  }
}

/** No serious or critical axe violation on the page as it stands. */
export async function assertAccessible(page: Page, name: string) {
  // Judged at rest: transitions still running (a dialog fading in) blend colors that no one reads.
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((a) => a.effect?.getComputedTiming().iterations !== Number.POSITIVE_INFINITY)
        .map((a) => a.finished.catch(() => undefined)),
    ),
  )
  // axe once per page (its half a megabyte compiled again for every check was a fifth of
  // Chromium's work in the suite), then run on the document; only violations are read, so
  // axe skips building the selectors of every passing node.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axe.source)
  const results = await page.evaluate(() =>
    (window as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ['violations'] }),
  )
  const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
  assert.deepEqual(
    serious.map(
      (v) =>
        `${v.id}: ${v.help} (${v.nodes.map((n) => `${n.target.join(' ')}: ${n.failureSummary}`).join(', ')})`,
    ),
    [],
    `${name}: axe`,
  )
}

/** Names of what Tab reaches from the top of the page, in order. */
export async function tabStops(page: Page, count: number): Promise<string[]> {
  await page.locator('body').focus()
  const names: string[] = []
  for (let i = 0; i < count; i++) {
    await page.keyboard.press('Tab')
    names.push(
      await page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null
        if (!el) return ''
        const label = el.getAttribute('aria-label') ?? (el as HTMLInputElement).labels?.[0]?.textContent ?? ''
        return (label || el.textContent || '').trim()
      }),
    )
  }
  return names
}

/** A fresh browser profile at desktop width, waiting up to `timeout` ms for what a test waits for. */
export async function desktopContext(browser: Browser, timeout = 60_000): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  context.setDefaultTimeout(timeout)
  return context
}

/**
 * A browser profile signed in as a dashboard client's member (its session and
 * CSRF cookies), at desktop width: pages open signed in, without the forms.
 */
export async function signedInContext(
  browser: Browser,
  client: { cookies: Map<string, string> },
  origin: string,
  timeout?: number,
): Promise<BrowserContext> {
  const context = await desktopContext(browser, timeout)
  await context.addCookies([...client.cookies].map(([name, value]) => ({ name, value, url: origin })))
  return context
}

/**
 * Clicks a copy button (Mantine's CopyButton) and returns what it put on the
 * clipboard. The button says `copiedLabel` for one second only, so the label
 * is recorded in the page by a MutationObserver set up before the click: a
 * test process slowed down after the click cannot miss it. The context needs
 * the clipboard permissions.
 */
export async function copyFrom(button: Locator, copiedLabel = 'Copied', timeout = 60_000): Promise<string> {
  const page = button.page()
  const element = await button.elementHandle({ timeout })
  if (!element) throw new Error(`no copy button: ${button}`)
  const labels = await element.evaluateHandle((el) => {
    const seen = [(el.textContent ?? '').trim()]
    new MutationObserver(() => {
      const label = (el.textContent ?? '').trim()
      if (seen.at(-1) !== label) seen.push(label)
    }).observe(el, { subtree: true, childList: true, characterData: true })
    return seen
  })
  await element.click()
  try {
    await page.waitForFunction(([seen, label]) => seen.includes(label), [labels, copiedLabel] as const, {
      timeout,
    })
  } catch (error) {
    throw new Error(
      `the copy button never said ${copiedLabel} within ${timeout} ms; its labels: ${JSON.stringify(await labels.jsonValue())}`,
      { cause: error },
    )
  }
  return page.evaluate(() => navigator.clipboard.readText())
}

/**
 * Waits until `locator` matches `count` elements (60 s by default, for a busy
 * machine); a timeout names what it waited for and the texts it saw last.
 */
export async function waitForCount(locator: Locator, count: number, what: string, timeoutMs = 60_000) {
  let seen: string[] = []
  await waitUntil(
    async () => {
      seen = await locator.allInnerTexts()
      return seen.length === count
    },
    `${what} (${count} of ${locator})`,
    { timeoutMs, intervalMs: 100, details: () => `saw ${seen.length}: ${JSON.stringify(seen)}` },
  )
}
