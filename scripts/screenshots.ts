/**
 * npm run screenshots: the pictures of docs/images, taken from the real
 * service (src/main.ts on a fresh embedded database) in headless Chromium.
 * Needs Debian's chromium (apt-get install -y chromium).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { orderBody } from '../test/helpers/app.ts'
import { launchChromium } from '../test/helpers/browser.ts'
import { startServiceProcess } from '../test/helpers/service-process.ts'
import { closedPort } from '../test/helpers/webhook-targets.ts'

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
  // The webhook pages' endpoints are on this machine (there is no network).
  WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8',
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
}

/**
 * API keys and Webhooks, as a developer of an organization whose shop sends
 * live orders: keys made by the operator and by the developer (one revoked,
 * one in use), and two live endpoints on a host that refuses connections, so
 * the log shows failed attempts and why.
 */
async function keysAndWebhooksPages() {
  const base = `http://127.0.0.1:${port}`
  const token = (await readFile(join(dataDir, 'operator-token'), 'utf8')).trim()
  const call = async (auth: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${auth}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
    return ((await res.json()) as { data: Record<string, unknown> }).data
  }
  const org = (await call(token, 'POST', '/admin/v1/organizations', { name: 'Northwind Posters' }))
    .organization as { id: string }
  const key = async (environment: string, scopes: string[], name: string) =>
    (await call(token, 'POST', `/admin/v1/organizations/${org.id}/api-keys`, { environment, scopes, name }))
      .key as string
  const all = ['orders:read', 'orders:write', 'files:write', 'webhooks:manage']
  await key('test', all, 'Staging shop')
  const live = await key('live', all, 'Production shop')
  const old = (await call(token, 'POST', `/admin/v1/organizations/${org.id}/api-keys`, {
    environment: 'live',
    scopes: ['orders:read'],
    name: 'Old reporting job',
  })) as { api_key: { id: string } }
  await call(token, 'DELETE', `/admin/v1/api-keys/${old.api_key.id}`)

  const closed = await closedPort()
  await call(live, 'POST', '/v1/webhook-endpoints', {
    url: `https://localhost:${closed}/hooks/erp`,
    description: 'ERP order sync',
  })
  await call(live, 'POST', '/v1/webhook-endpoints', {
    url: `https://localhost:${closed}/hooks/notify`,
    description: 'Cancellations to the support channel',
    enabled_events: ['order.cancelled', 'order.production_failed'],
  })
  for (let i = 0; i < 2; i++) await call(live, 'POST', '/v1/orders', orderBody())

  const invitation = (await call(token, 'POST', `/admin/v1/organizations/${org.id}/invitations`, {
    email: 'lin@northwind.example',
    role: 'developer',
  })) as { url: string }
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } })
  await page.goto(`${base}/dashboard/invitation${new URL(invitation.url).hash}`)
  await page.getByLabel('New password').fill('correct horse battery staple')
  await page.getByLabel('Repeat the password').fill('correct horse battery staple')
  await page.getByRole('button', { name: 'Set password and sign in' }).click()
  await page.getByRole('heading', { name: 'Members', level: 1 }).waitFor()

  await page.goto(`${base}/dashboard/api-keys`)
  await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor()
  await page.getByLabel('Name (optional)').fill('Label printer')
  await page.getByRole('button', { name: 'Create key' }).click()
  await page.getByLabel('API key', { exact: true }).waitFor()
  await page.getByRole('table', { name: 'API keys' }).getByText('Label printer').waitFor()
  await page.mouse.move(1279, 719)
  await page.screenshot({ path: 'docs/images/dashboard-api-keys.png', fullPage: true })
  console.log('wrote docs/images/dashboard-api-keys.png')

  // The first attempts have failed by now (connection refused).
  await page.waitForTimeout(3000)
  await page.goto(`${base}/dashboard/webhooks?environment=live`)
  await page.getByRole('table', { name: 'Webhook endpoints (live)' }).waitFor()
  await page.mouse.move(1279, 719)
  await page.screenshot({ path: 'docs/images/dashboard-webhooks.png', fullPage: true })
  console.log('wrote docs/images/dashboard-webhooks.png')

  await page.getByRole('link', { name: /hooks\/erp$/ }).click()
  await page.getByRole('table', { name: 'Deliveries' }).waitFor()
  await page.mouse.move(1279, 719)
  await page.screenshot({ path: 'docs/images/dashboard-webhook-endpoint.png', fullPage: true })
  console.log('wrote docs/images/dashboard-webhook-endpoint.png')
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
  await dashboardPages()
  await keysAndWebhooksPages()
} finally {
  await browser.close()
  service.child.kill('SIGTERM')
  await service.exited
  await rm(dataDir, { recursive: true, force: true })
}
