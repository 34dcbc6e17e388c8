import { crc32, deflateSync } from 'node:zlib'
import type { dashboardPages } from './dashboard.ts'
import type { Shots } from './shots.ts'

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
export async function orderAndProductPages(
  { orderEndpointPort }: Shots,
  signedIn: Awaited<ReturnType<typeof dashboardPages>>,
) {
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
  await call('POST', `/admin/v1/organizations/${orgId}/products`, token, {
    sku: 'CARD-A6',
    name: 'Greeting card A6',
  })
  const mug = await call<{ product: { id: string } }>(
    'POST',
    `/admin/v1/organizations/${orgId}/products`,
    token,
    {
      sku: 'MUG-WHITE-330',
      name: 'White mug 330 ml',
    },
  )
  // The mug's wrap: its front artwork is checked against it (and found far too small).
  await call('PUT', `/admin/v1/products/${mug.product.id}/print-spec`, token, {
    print_spec: { roles: { front: { width_mm: 200, height_mm: 90, min_dpi: 150, colour: 'cmyk' } } },
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
  // The endpoint comes after the orders above: their failures would open its
  // circuit, and this order's deliveries would wait behind their probes.
  await call('POST', '/v1/webhook-endpoints', key, {
    url: `https://localhost:${orderEndpointPort}/erp/webhooks`,
    description: 'ERP',
  })
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

  await page.goto(`${base}/dashboard/orders/${order.id}`)
  await page.getByRole('heading', { name: 'Order SHOP-10482', level: 1 }).waitFor()
  await page.getByText('order.received').waitFor()
  // The page shows the deliveries as they were when it loaded: reload until the first attempt failed.
  for (let tries = 0; (await page.getByText(/^1 attempt/).count()) === 0; tries++) {
    if (tries === 30) {
      await page.screenshot({ path: '/tmp/screenshots-order-page.png', fullPage: true })
      throw new Error('no delivery attempt shown after 30 s (see /tmp/screenshots-order-page.png)')
    }
    await page.waitForTimeout(1000)
    await page.reload()
    await page.getByText('order.received').waitFor()
  }
  // Production starts once the endpoint's first attempt failed, so on every
  // run the new event's delivery is the one held back, unattempted, while the
  // endpoint fails (docs/decisions/2026-11-28-webhook-circuit-breaker.md).
  const view = (
    await call<{
      order: { production_order: { id: string } }
    }>('GET', `/admin/v1/orders/${order.id}`, token)
  ).order
  await call('POST', `/admin/v1/production-orders/${view.production_order.id}/status`, token, {
    status: 'in_progress',
  })
  await page.reload()
  await page.getByText('order.production_started').waitFor()
  await page.getByRole('img', { name: 'Preview of acme-logo.svg' }).waitFor()
  // The files' print check is in: the front artwork's problem, with what to do.
  await page.getByText('Print check: problem').first().waitFor({ timeout: 60_000 })
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

  // The owner's Usage page: this month's live orders, by product.
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Usage' }).click()
  await page.getByRole('heading', { name: 'Usage', level: 1 }).waitFor()
  await page.getByRole('row').filter({ hasText: 'White mug 330 ml' }).waitFor()
  await page.mouse.move(1279, 799)
  await page.screenshot({ path: 'docs/images/dashboard-usage.png' })
  console.log('wrote docs/images/dashboard-usage.png')
}
