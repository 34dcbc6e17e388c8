import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { consoleOrderPage } from './order-edit.ts'
import type { Shots } from './shots.ts'

/** The operator's console: an operator account invited by the token, on the data the other pages made. */
export async function consolePages({ port, dataDir, browser }: Shots, editedOrderId?: string) {
  const base = `http://127.0.0.1:${port}`
  const token = (await readFile(join(dataDir, 'operator-token'), 'utf8')).trim()
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
    return ((await res.json()) as { data: Record<string, unknown> }).data
  }
  const organizations = (await call('GET', '/admin/v1/organizations')) as unknown as {
    id: string
    name: string
  }[]
  const acme = organizations.find((o) => o.name === 'Acme Prints')!
  await call('POST', `/admin/v1/organizations/${acme.id}/shop-orders`, {
    external_order_id: 'ETSY-88412',
    customer: { name: 'Margaret Hamilton', email: 'margaret@apollo.example' },
    currency: 'EUR',
    total_amount: 39.8,
    items: [{ sku: 'POSTER-A2', name: 'Poster A2', quantity: 2, price: 19.9 }],
  })
  const invited = (await call('POST', '/admin/v1/operators/invitations', {
    email: 'ops@platform.example',
  })) as {
    url: string
  }
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } })
  await page.goto(`${base}/dashboard/invitation${new URL(invited.url).hash}`)
  await page.getByLabel('New password').fill('correct horse battery staple')
  await page.getByLabel('Repeat the password').fill('correct horse battery staple')
  await page.getByRole('button', { name: 'Set password and sign in' }).click()
  await page.getByRole('heading', { name: 'Organizations', level: 1 }).waitFor()
  await page.getByRole('row').filter({ hasText: 'Acme Prints' }).waitFor()
  await page.getByLabel('Name').fill('Blue Harbor Textiles')
  await page.getByLabel("First owner's email").fill('owner@blueharbor.example')
  await page.getByRole('button', { name: 'Create and invite' }).click()
  await page.getByLabel('Invitation link').waitFor()
  await page.getByRole('row').filter({ hasText: 'Blue Harbor Textiles' }).waitFor()
  await page.mouse.move(1279, 719)
  await page.screenshot({ path: 'docs/images/console-organizations.png' })
  console.log('wrote docs/images/console-organizations.png')

  await page.goto(`${base}/dashboard/operator/production`)
  await page.getByRole('heading', { name: 'Production', level: 1 }).waitFor()
  const first = page.getByRole('button', { name: /^Start production: / }).first()
  await first.click()
  await page.getByRole('status').filter({ hasText: 'order.production_started' }).waitFor()
  await page.mouse.move(1279, 719)
  await page.screenshot({ path: 'docs/images/console-production.png' })
  console.log('wrote docs/images/console-production.png')

  // The order the order page's picture shows (in production, with files), and its job sheet.
  await page.goto(`${base}/dashboard/operator/production?status=in_progress`)
  await page.getByRole('link', { name: 'Open production order SHOP-10482' }).click()
  await page.getByRole('heading', { name: 'Production order SHOP-10482', level: 1 }).waitFor()
  await page
    .getByRole('table', { name: 'History of the order' })
    .getByText('order.production_started')
    .waitFor()
  await page.waitForFunction(() => [...document.images].every((img) => img.complete && img.naturalWidth > 0))
  await page.mouse.move(1279, 719)
  await page.screenshot({ path: 'docs/images/console-production-order.png', fullPage: true })
  console.log('wrote docs/images/console-production-order.png')
  await page.getByRole('link', { name: 'Job sheet' }).click()
  await page.getByRole('img', { name: /^QR code of production order/ }).waitFor()
  await page.waitForFunction(() => [...document.images].every((img) => img.complete && img.naturalWidth > 0))
  // As printed: A4 at 96 dpi, the print stylesheet applied.
  await page.setViewportSize({ width: 794, height: 1123 })
  await page.emulateMedia({ media: 'print' })
  await page.screenshot({ path: 'docs/images/console-job-sheet.png' })
  console.log('wrote docs/images/console-job-sheet.png')
  await page.emulateMedia({ media: 'screen' })
  await page.setViewportSize({ width: 1280, height: 720 })

  await page.goto(`${base}/dashboard/operator/shop-orders`)
  await page.getByRole('heading', { name: 'Shop orders', level: 1 }).waitFor()
  await page.getByRole('combobox', { name: /^Organization/ }).click()
  await page.getByRole('option', { name: 'Acme Prints' }).click()
  await page.getByLabel('Order number in the shop').fill('ETSY-88413')
  await page.getByLabel('Customer name').fill('Hedy Lamarr')
  await page.getByLabel('Customer email').fill('hedy@frequency.example')
  await page.getByLabel('Total amount').fill('25')
  await page.getByLabel('Item 1 SKU').fill('MUG-11OZ')
  await page.getByLabel('Item 1 name').fill('Mug 11 oz')
  await page.getByLabel('Item 1 quantity').fill('2')
  await page.getByLabel('Item 1 unit price').fill('12.5')
  await page.getByRole('button', { name: 'Create shop order' }).click()
  await page.getByRole('status').filter({ hasText: 'Shop order created' }).waitFor()
  await page.mouse.move(1279, 719)
  await page.screenshot({ path: 'docs/images/console-shop-orders.png', fullPage: true })
  console.log('wrote docs/images/console-shop-orders.png')

  await page.goto(`${base}/dashboard/operator/statistics`)
  await page.getByRole('heading', { name: 'Statistics', level: 1 }).waitFor()
  await page
    .getByRole('table', { name: /Each organization/ })
    .getByRole('row')
    .filter({ hasText: 'Acme' })
    .waitFor()
  await page.mouse.move(1279, 719)
  await page.screenshot({ path: 'docs/images/console-statistics.png' })
  console.log('wrote docs/images/console-statistics.png')

  await page.goto(`${base}/dashboard/operator/billing`)
  await page.getByRole('heading', { name: 'Billing', level: 1 }).waitFor()
  await page
    .getByRole('row')
    .filter({ hasText: 'Acme Prints' })
    .getByText(/MUG-WHITE-330 ×/)
    .waitFor()
  await page.mouse.move(1279, 719)
  await page.screenshot({ path: 'docs/images/console-billing.png' })
  console.log('wrote docs/images/console-billing.png')

  // A second operator account (accepted), and a pending invitation made on the page.
  const colleague = (await call('POST', '/admin/v1/operators/invitations', {
    email: 'lin@platform.example',
  })) as { url: string }
  const other = await browser.newPage()
  await other.goto(`${base}/dashboard/invitation${new URL(colleague.url).hash}`)
  await other.getByLabel('New password').fill('correct horse battery staple')
  await other.getByLabel('Repeat the password').fill('correct horse battery staple')
  await other.getByRole('button', { name: 'Set password and sign in' }).click()
  await other.getByRole('heading', { name: 'Organizations', level: 1 }).waitFor()
  await other.close()
  await call('POST', '/admin/v1/operators/invitations', { email: 'sam@platform.example' })
  await page.goto(`${base}/dashboard/operator/operators`)
  await page.getByRole('heading', { name: 'Operators', level: 1 }).waitFor()
  const invite = page.getByRole('region', { name: 'Invite an operator' })
  await invite.getByLabel('Email').fill('kim@platform.example')
  await invite.getByRole('button', { name: 'Create invitation' }).click()
  await invite.getByLabel('Invitation link').waitFor()
  await page.getByRole('cell', { name: 'kim@platform.example', exact: true }).waitFor()
  await page.getByRole('cell', { name: /^lin@platform\.example/ }).waitFor()
  await page.mouse.move(1279, 719)
  await page.screenshot({ path: 'docs/images/console-operators.png', fullPage: true })
  console.log('wrote docs/images/console-operators.png')

  if (editedOrderId) {
    const view = (await call('GET', `/admin/v1/orders/${editedOrderId}`)) as {
      order: { production_order: { id: string } }
    }
    await call('POST', `/admin/v1/production-orders/${view.order.production_order.id}/status`, {
      status: 'in_progress',
    })
    await consoleOrderPage(page, base, editedOrderId)
  }
}
