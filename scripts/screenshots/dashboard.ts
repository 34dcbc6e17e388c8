import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Shots } from './shots.ts'

/** The dashboard's pages, signed in as the owner of a small organization. */
export async function dashboardPages({ port, dataDir, browser }: Shots) {
  const base = `http://127.0.0.1:${port}`
  const token = (await readFile(join(dataDir, 'operator-token'), 'utf8')).trim()
  const admin = async (path: string, body: unknown) => {
    const res = await fetch(`${base}/admin/v1${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    return ((await res.json()) as { data: Record<string, unknown> }).data
  }
  const org = (await admin('/organizations', { name: 'Acme Prints' })).organization as { id: string }
  const invite = async (email: string, role: string) =>
    new URL(String((await admin(`/organizations/${org.id}/invitations`, { email, role })).url)).hash
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } })
  await page.goto(`${base}/dashboard/invitation${await invite('ada@acme.example', 'owner')}`)
  await page.getByLabel('New password').fill('correct horse battery staple')
  await page.getByLabel('Repeat the password').fill('correct horse battery staple')
  await page.getByRole('button', { name: 'Set password and sign in' }).click()
  await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor()
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Members' }).click()
  await page.getByRole('heading', { name: 'Members', level: 1 }).waitFor()
  const invite2 = page.getByRole('region', { name: 'Invite a member' })
  await invite2.getByLabel('Email').fill('grace@acme.example')
  await invite2.getByRole('button', { name: 'Create invitation' }).click()
  await page.getByLabel('Invitation link').waitFor()
  for (const [section, file] of [
    ['Members', 'docs/images/dashboard-members.png'],
    ['Audit log', 'docs/images/dashboard-audit-log.png'],
    ['Account', 'docs/images/dashboard-account.png'],
  ] as const) {
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: section }).click()
    await page.getByRole('heading', { name: section, level: 1 }).waitFor()
    await page.getByRole('table').first().waitFor()
    await page.mouse.move(1279, 719)
    await page.screenshot({ path: file })
    console.log(`wrote ${file}`)
  }
  return { page, base, admin, token, orgId: org.id }
}

/** Home and Orders, after orders through /v1 (live and test) and a few production changes. */
export async function homeAndOrdersPages({
  page,
  base,
  admin,
  token,
  orgId,
}: Awaited<ReturnType<typeof dashboardPages>>) {
  const scopes = ['orders:read', 'orders:write', 'files:write', 'webhooks:manage']
  const keyOf = async (environment: string) =>
    String((await admin(`/organizations/${orgId}/api-keys`, { environment, scopes })).key)
  const [live, test] = [await keyOf('live'), await keyOf('test')]
  const customers = [
    ['Ada Lovelace', 'ada@lovelace.example'],
    ['Grace Hopper', 'grace@navy.example'],
    ['Alan Turing', 'alan@bletchley.example'],
    ['Katherine Johnson', 'katherine@nasa.example'],
    ['Edsger Dijkstra', 'edsger@tue.example'],
    ['Barbara Liskov', 'barbara@mit.example'],
  ]
  const created: string[] = []
  for (let n = 0; n < 14; n++) {
    const [name, email] = customers[n % customers.length]!
    const res = await fetch(`${base}/v1/orders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${n % 7 === 6 ? test : live}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        external_order_id: `SHOP-${10_240 + n}`,
        customer: { name, email },
        currency: 'EUR',
        total_amount: 24.9 + n * 7,
        items: [
          { sku: 'MUG-11OZ', name: 'Mug 11 oz', quantity: 1 + (n % 3), price: 12.5 },
          ...(n % 2 ? [{ sku: 'CARD-A6', name: 'Greeting card A6', quantity: 2, price: 3.2 }] : []),
        ],
      }),
    })
    created.push(((await res.json()) as { data: { order: { id: string } } }).data.order.id)
  }
  for (const [n, status] of [
    [0, 'in_progress'],
    [1, 'completed'],
    [2, 'in_progress'],
    [3, 'completed'],
    [4, 'failed'],
  ] as const) {
    const view = await fetch(`${base}/admin/v1/orders/${created[n]}`, {
      headers: { authorization: `Bearer ${token}` },
    })
    const production = ((await view.json()) as { data: { order: { production_order: { id: string } } } }).data
      .order.production_order.id
    await admin(`/production-orders/${production}/status`, { status })
  }
  for (const [section, file] of [
    ['Home', 'docs/images/dashboard-home.png'],
    ['Orders', 'docs/images/dashboard-orders.png'],
  ] as const) {
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: section }).click()
    await page.getByRole('heading', { name: section, level: 1 }).waitFor()
    // Freshly read (not the figures cached from the first visit, before the orders).
    await page.reload()
    await page
      .getByRole('table')
      .first()
      .getByRole('cell', { name: /^[1-9]/ })
      .first()
      .waitFor()
    await page.mouse.move(1279, 719)
    await page.screenshot({ path: file })
    console.log(`wrote ${file}`)
  }
}
