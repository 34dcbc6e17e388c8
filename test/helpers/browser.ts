import { existsSync } from 'node:fs'
import { type Browser, chromium, type Page } from 'playwright-core'

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it). */
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium'
const CI = process.env.CI === 'true' || process.env.CI === '1'

/**
 * The `skip` option of a browser test: skipped, with the reason, only when
 * Chromium is missing outside CI. Under CI the test runs and fails instead.
 */
export const browserSkip =
  !CI && !existsSync(CHROMIUM)
    ? `Chromium is not installed at ${CHROMIUM} (apt-get install -y chromium); browser tests skipped`
    : false

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium is required under CI but missing at ${CHROMIUM}`)
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] })
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
