/**
 * npm run screenshots: the pictures of docs/images, taken from the real
 * service (src/main.ts on a fresh embedded database) in headless Chromium.
 * Needs Debian's chromium (apt-get install -y chromium).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { launchChromium } from '../test/helpers/browser.ts'
import { startServiceProcess } from '../test/helpers/service-process.ts'

const port = await new Promise<number>((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port } = probe.address() as { port: number }
    probe.close(() => resolve(port))
  })
})
const dataDir = await mkdtemp(join(tmpdir(), 'svc-screenshots-'))
const service = await startServiceProcess({
  PORT: String(port),
  DATA_DIR: dataDir,
  PUBLIC_BASE_URL: 'http://localhost:3000',
  LOG_LEVEL: 'info',
})
const browser = await launchChromium()

/** The dashboard's pages, signed in as the owner of a small organization. */
async function dashboardPages() {
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
    await page.mouse.move(1279, 719)
    await page.screenshot({ path: file })
    console.log(`wrote ${file}`)
  }
  return { page, base, admin, orgId: org.id }
}

/** Home and Orders, after orders through /v1 (live and test) and a few production changes. */
async function homeAndOrdersPages({ page, base, admin, orgId }: Awaited<ReturnType<typeof dashboardPages>>) {
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
  const token = (await readFile(join(dataDir, 'operator-token'), 'utf8')).trim()
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
    await page.getByRole('table').first().waitFor()
    await page.mouse.move(1279, 719)
    await page.screenshot({ path: file })
    console.log(`wrote ${file}`)
  }
}

try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
  await page.goto(`http://127.0.0.1:${port}/docs`)
  await page
    .getByRole('link', { name: /^Create an order/ })
    .first()
    .click()
  await page
    .getByRole('heading', { name: /^Create an order/ })
    .first()
    .waitFor()
  await page.mouse.move(0, 799) // no hover highlight in the picture
  await page.waitForTimeout(500) // the code samples settle after scrolling
  const file = 'docs/images/docs-reference.png'
  await page.screenshot({ path: file })
  console.log(`wrote ${file}`)
  await homeAndOrdersPages(await dashboardPages())
} finally {
  await browser.close()
  service.child.kill('SIGTERM')
  await service.exited
  await rm(dataDir, { recursive: true, force: true })
}
