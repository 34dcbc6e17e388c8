/**
 * npm run screenshots: the pictures of docs/images, taken from the real
 * service (src/main.ts on a fresh embedded database) in headless Chromium.
 * Needs Debian's chromium (apt-get install -y chromium).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { crc32, deflateSync } from 'node:zlib'
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
// Where the order page's webhook endpoint points: nothing listens, its deliveries fail.
const orderEndpointPort = await closedPort()
const dataDir = await mkdtemp(join(tmpdir(), 'svc-screenshots-'))
const service = await startServiceProcess({
  PORT: String(port),
  DATA_DIR: dataDir,
  PUBLIC_BASE_URL: 'http://localhost:3000',
  LOG_LEVEL: 'info',
  // The webhook pages' endpoints are on this machine (there is no network).
  WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8,::1/128',
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
    await page.getByRole('table').first().waitFor()
    await page.mouse.move(1279, 719)
    await page.screenshot({ path: file })
    console.log(`wrote ${file}`)
  }
  return { page, base, admin, token, orgId: org.id }
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

/** A PNG of flat bands and a disc (the artwork of the order page's thumbnail). */
function artworkPng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4)
    length.writeUInt32BE(data.length)
    const typed = Buffer.concat([Buffer.from(type, 'latin1'), data])
    const crc = Buffer.alloc(4)
    crc.writeUInt32BE(crc32(typed))
    return Buffer.concat([length, typed, crc])
  }
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr[8] = 8
  ihdr[9] = 2
  const rows: number[] = []
  for (let y = 0; y < height; y++) {
    rows.push(0)
    for (let x = 0; x < width; x++) {
      // Flat bands of colour: a simple mug design that keeps the picture small.
      const band = Math.floor((4 * y) / height)
      const inCircle = (x - width / 2) ** 2 + (y - height / 2) ** 2 < (height / 4) ** 2
      rows.push(
        ...(inCircle
          ? [255, 212, 59]
          : [
              [34, 139, 230],
              [59, 91, 219],
              [95, 61, 196],
              [132, 94, 247],
            ][band]!),
      )
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.from(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120 80" width="120" height="80">' +
  '<rect width="120" height="80" rx="10" fill="#f3f0ff"/><circle cx="40" cy="40" r="22" fill="#5f3dc4"/>' +
  '<rect x="70" y="22" width="34" height="36" rx="6" fill="#f59f00"/></svg>'

const PROOF_PDF =
  '%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n'

/**
 * The order page and Products: a live order made through /v1 with a
 * thumbnail, a logo (SVG), a proof (PDF) and an unmatched sku, in production.
 */
async function orderAndProductPages(signedIn: Awaited<ReturnType<typeof dashboardPages>>) {
  const { page, base, token, orgId } = signedIn
  const call = async <T = unknown>(
    method: string,
    path: string,
    auth: string,
    body?: unknown,
  ): Promise<T> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${auth}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
    return ((await res.json()) as { data: T }).data
  }
  const key = String(
    (
      await call<{ key: string }>('POST', `/admin/v1/organizations/${orgId}/api-keys`, token, {
        environment: 'live',
        scopes: ['orders:read', 'orders:write', 'files:write', 'webhooks:manage'],
      })
    ).key,
  )
  const upload = async (filename: string, bytes: Buffer) => {
    const slot = await call<{ upload_url: string; upload_id: string }>('POST', '/v1/uploads', key, {
      filename,
    })
    // The slot names PUBLIC_BASE_URL; the bytes go to this process.
    const url = new URL(String(slot.upload_url))
    const put = await fetch(`${base}${url.pathname}${url.search}`, {
      method: 'PUT',
      body: new Uint8Array(bytes),
    })
    if (!put.ok) throw new Error(`PUT ${filename}: ${put.status}`)
    return String(slot.upload_id)
  }
  await call('POST', '/v1/webhook-endpoints', key, {
    url: `https://localhost:${orderEndpointPort}/erp/webhooks`,
    description: 'ERP',
  })
  await call('POST', `/admin/v1/organizations/${orgId}/products`, token, {
    sku: 'CARD-A6',
    name: 'Greeting card A6',
  })
  await call('POST', `/admin/v1/organizations/${orgId}/products`, token, {
    sku: 'MUG-WHITE-330',
    name: 'White mug 330 ml',
  })
  for (const [n, sku, name] of [
    [1, 'TOTE-NATURAL', 'Tote bag, natural'],
    [2, 'POSTER-A2-MATTE', 'Poster A2 matte'],
  ] as const) {
    await call('POST', '/v1/orders', key, {
      external_order_id: `SHOP-1047${n}`,
      customer: { name: 'Jonas Berg', email: 'jonas@example.com' },
      items: [{ sku, name, quantity: n }],
    })
  }
  const files = {
    front: await upload('mug-front.png', artworkPng(240, 160)),
    logo: await upload('acme-logo.svg', Buffer.from(LOGO_SVG)),
    proof: await upload('proof-v2.pdf', Buffer.from(PROOF_PDF, 'latin1')),
  }
  const order = (
    await call<{ order: { id: string } }>('POST', '/v1/orders', key, {
      external_order_id: 'SHOP-10482',
      customer: { name: 'Mara Lindqvist', email: 'mara@example.com', phone: '+46 70 123 45 67' },
      currency: 'EUR',
      total_amount: 64.8,
      items: [
        {
          sku: 'MUG-WHITE-330',
          name: 'White mug 330 ml',
          quantity: 2,
          price: 14.9,
          personalization: { name: 'Mara', color: 'Midnight blue' },
          files: [
            { upload_id: files.front, role: 'front' },
            { upload_id: files.logo, role: 'logo' },
            { upload_id: files.proof, role: 'proof' },
          ],
        },
        { sku: 'POSTER-A2-MATTE', name: 'Poster A2 matte', quantity: 1, price: 35 },
      ],
    })
  ).order as { id: string }
  const view = (
    await call<{
      order: { production_order: { id: string } }
    }>('GET', `/admin/v1/orders/${order.id}`, token)
  ).order
  await call('POST', `/admin/v1/production-orders/${view.production_order.id}/status`, token, {
    status: 'in_progress',
  })

  await page.goto(`${base}/dashboard/orders/${order.id}`)
  await page.getByRole('heading', { name: 'Order SHOP-10482', level: 1 }).waitFor()
  await page.getByRole('img', { name: 'Preview of acme-logo.svg' }).waitFor()
  await page.getByText('order.production_started').waitFor()
  await page
    .getByText(/^1 attempt/)
    .first()
    .waitFor()
  // The whole page in one picture, with the shell as tall as the page.
  await page.waitForFunction(() => [...document.images].every((img) => img.complete && img.naturalWidth > 0))
  const height = await page.evaluate(() => document.documentElement.scrollHeight)
  await page.setViewportSize({ width: 1280, height })
  await page.mouse.move(1279, height - 1)
  await page.screenshot({ path: 'docs/images/dashboard-order.png' })
  console.log('wrote docs/images/dashboard-order.png')

  await page.setViewportSize({ width: 1280, height: 800 })
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Products' }).click()
  await page.getByRole('heading', { name: 'Products', level: 1 }).waitFor()
  await page.getByRole('button', { name: 'Create product for POSTER-A2-MATTE' }).click()
  await page.getByRole('textbox', { name: 'Name' }).fill('Poster A2 matte')
  await page.mouse.move(1279, 799)
  await page.screenshot({ path: 'docs/images/dashboard-products.png' })
  console.log('wrote docs/images/dashboard-products.png')
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
  await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor()

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

/** The operator's console: an operator account invited by the token, on the data the other pages made. */
async function consolePages() {
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

  await page.goto(`${base}/dashboard/operator/shop-orders`)
  await page.getByRole('heading', { name: 'Shop orders', level: 1 }).waitFor()
  await page.getByRole('combobox', { name: /^Organization/ }).click()
  await page.getByRole('option', { name: 'Acme Prints' }).click()
  await page.getByLabel('Shop order id (external_order_id)').fill('ETSY-88413')
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
  const signedIn = await dashboardPages()
  await homeAndOrdersPages(signedIn)
  await orderAndProductPages(signedIn)
  await keysAndWebhooksPages()
  await consolePages()
} finally {
  await browser.close()
  service.child.kill('SIGTERM')
  await service.exited
  await rm(dataDir, { recursive: true, force: true })
}
