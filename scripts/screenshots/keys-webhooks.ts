import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { orderBody } from '../../test/helpers/app.ts'
import { closedPort } from '../../test/helpers/webhook-targets.ts'
import type { Shots } from './shots.ts'

/**
 * API keys and Webhooks, as a developer of an organization whose shop sends
 * live orders: keys made by the operator and by the developer (one revoked,
 * one in use), and two live endpoints on a host that refuses connections, so
 * the log shows failed attempts and why.
 */
export async function keysAndWebhooksPages({ port, dataDir, browser }: Shots) {
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

  await page
    .getByRole('table', { name: 'Deliveries' })
    .getByRole('button', { name: /^Details of order\.received/ })
    .first()
    .click()
  const details = page.getByRole('dialog', { name: 'Delivery details' })
  await details.getByLabel('Event payload').waitFor()
  await page.mouse.move(1279, 719)
  await page.screenshot({ path: 'docs/images/dashboard-delivery-details.png' })
  console.log('wrote docs/images/dashboard-delivery-details.png')
  await page.keyboard.press('Escape')
  await details.waitFor({ state: 'hidden' })
  return { page, base, live }
}
