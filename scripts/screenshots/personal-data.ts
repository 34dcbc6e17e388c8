import type { dashboardPages } from './dashboard.ts'

/** Personal data: the owner has found a customer (orders made for Home and Orders) and sees what an erasure takes. */
export async function personalDataPage(signedIn: Awaited<ReturnType<typeof dashboardPages>>) {
  const { page, base } = signedIn
  await page.setViewportSize({ width: 1280, height: 1000 })
  await page.goto(`${base}/dashboard/personal-data`)
  await page.getByRole('heading', { name: 'Personal data', level: 1 }).waitFor()
  const form = page.getByRole('form', { name: 'Find a customer' })
  await form.getByLabel('E-mail').fill('grace@navy.example')
  await form.getByRole('button', { name: 'Find their data' }).click()
  await page.getByRole('heading', { name: /orders? found$/ }).waitFor()
  await page.mouse.move(0, 999)
  const file = 'docs/images/dashboard-personal-data.png'
  await page.screenshot({ path: file, fullPage: true })
  console.log(`wrote ${file}`)
}
