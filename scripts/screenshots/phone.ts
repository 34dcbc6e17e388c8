import type { dashboardPages } from './dashboard.ts'
import type { Shots } from './shots.ts'

/**
 * Two pages on a phone (390 × 844), signed in as the same owner: Orders as
 * cards, and an order's timeline with its webhook deliveries.
 */
export async function phonePages({ browser }: Shots, signedIn: Awaited<ReturnType<typeof dashboardPages>>) {
  const { page: desktop, base } = signedIn
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    isMobile: true,
    hasTouch: true,
  })
  await context.addCookies(await desktop.context().cookies())
  const page = await context.newPage()
  await page.goto(`${base}/dashboard/orders`)
  await page
    .getByRole('list', { name: /orders, newest first/ })
    .getByRole('listitem')
    .first()
    .waitFor()
  let file = 'docs/images/dashboard-phone-orders.png'
  await page.screenshot({ path: file })
  console.log(`wrote ${file}`)
  // The order whose deliveries fail (its endpoint does not answer), as on the desktop picture.
  await page.goto(`${base}/dashboard/orders?environment=live&q=shop-10482`)
  await page.getByRole('link', { name: 'SHOP-10482' }).click()
  const timeline = page.getByRole('list', { name: 'Events of the order and their webhook deliveries' })
  await timeline.getByRole('listitem').last().waitFor()
  // The timeline's heading just below the fixed header (56 px).
  const top = await page
    .getByRole('heading', { name: 'Timeline' })
    .evaluate((h) => h.getBoundingClientRect().top + window.scrollY)
  await page.evaluate((y) => window.scrollTo(0, y - 72), top)
  file = 'docs/images/dashboard-phone-order.png'
  await page.screenshot({ path: file })
  console.log(`wrote ${file}`)
  await context.close()
}
