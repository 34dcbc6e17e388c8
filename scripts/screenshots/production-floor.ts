import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import type { Shots } from './shots.ts'

/** docs/production.md's pictures: the calendar, a batch, its sheet and a station after a scan, as an operator. */
export async function productionFloorPages({ port, dataDir, browser }: Shots) {
  const base = `http://127.0.0.1:${port}`
  const token = (await readFile(join(dataDir, 'operator-token'), 'utf8')).trim()
  const res = await fetch(`${base}/admin/v1/operators/invitations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'floor@platform.example' }),
  })
  if (!res.ok) throw new Error(`invitation: ${res.status} ${await res.text()}`)
  const { url } = ((await res.json()) as { data: { url: string } }).data
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } })
  await page.goto(`${base}/dashboard/invitation${new URL(url).hash}`)
  await page.getByLabel('New password').fill('correct horse battery staple')
  await page.getByLabel('Repeat the password').fill('correct horse battery staple')
  await page.getByRole('button', { name: 'Set password and sign in' }).click()
  await page.getByRole('heading', { name: 'Organizations', level: 1 }).waitFor()
  const shot = async (p: Page, file: string, fullPage = false) => {
    await p.mouse.move(1279, 719)
    await p.screenshot({ path: `docs/images/${file}`, fullPage })
    console.log(`wrote docs/images/${file}`)
  }

  await page.goto(`${base}/dashboard/operator/production-calendar`)
  await page.getByRole('heading', { name: 'Production calendar', level: 1 }).waitFor()
  await page.getByLabel('Default lead time').waitFor()
  await shot(page, 'console-production-calendar.png', true)

  await page.goto(`${base}/dashboard/operator/stations`)
  await page.getByRole('region', { name: 'Add a station' }).getByLabel('Name').fill('Press 2')
  await page.getByRole('button', { name: 'Add station' }).click()
  await page.getByRole('link', { name: 'open its station page' }).waitFor()
  const station = await page.getByRole('link', { name: 'open its station page' }).getAttribute('href')

  // Two pending orders of the board into a batch, from its checkboxes.
  await page.goto(`${base}/dashboard/operator/production`)
  const ticks = page.getByRole('checkbox', { name: /^Select order / })
  await ticks.first().waitFor()
  await ticks.nth(0).check()
  await ticks.nth(1).check()
  await page.getByRole('button', { name: 'Add 2 to batch…' }).click()
  const dialog = page.getByRole('dialog', { name: 'Add 2 orders to a batch' })
  await dialog.getByLabel('Name').fill('A2 posters, Monday')
  await dialog.getByRole('button', { name: 'Add 2 orders' }).click()
  await page.getByRole('link', { name: 'Open batch A2 posters, Monday' }).click()
  await page.getByRole('heading', { name: /A2 posters, Monday/, level: 1 }).waitFor()
  const batchId = new URL(page.url()).pathname.split('/').at(-1)!
  await page.waitForFunction(() => [...document.images].every((img) => img.complete && img.naturalWidth > 0))
  await shot(page, 'console-batch.png', true)

  await page.getByRole('link', { name: 'Print batch sheet' }).click()
  await page.getByRole('img', { name: `QR code of batch ${batchId}` }).waitFor()
  await page.waitForFunction(() => [...document.images].every((img) => img.complete && img.naturalWidth > 0))
  // As printed: A4 at 96 dpi, the print stylesheet applied.
  await page.setViewportSize({ width: 794, height: 1123 })
  await page.emulateMedia({ media: 'print' })
  await page.screenshot({ path: 'docs/images/console-batch-sheet.png' })
  console.log('wrote docs/images/console-batch-sheet.png')
  await page.emulateMedia({ media: 'screen' })

  // A station page on a tablet after the batch's code was scanned and the batch started.
  await page.setViewportSize({ width: 1024, height: 900 })
  await page.goto(`${base}/dashboard${station!.replace(/^\/dashboard/, '')}`)
  await page.getByLabel('Scan a code').waitFor()
  await page.keyboard.type(`batch:${batchId}`)
  await page.keyboard.press('Enter')
  await page.getByRole('status').filter({ hasText: 'Opened batch A2 posters, Monday' }).waitFor()
  await page.getByRole('button', { name: 'Start batch' }).click()
  await page
    .getByRole('dialog', { name: 'Start batch A2 posters, Monday?' })
    .getByRole('button', { name: 'Start the batch' })
    .click()
  await page.getByRole('status').filter({ hasText: 'Started batch A2 posters, Monday' }).first().waitFor()
  await page.mouse.move(1023, 899)
  await page.screenshot({ path: 'docs/images/console-station.png' })
  console.log('wrote docs/images/console-station.png')
  await page.close()
}
