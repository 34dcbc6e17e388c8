import type { Page } from 'playwright-core'
import type { dashboardPages } from './dashboard.ts'

/** The whole page in one picture, with the shell as tall as the page. */
async function wholePage(page: Page, path: string) {
  const height = await page.evaluate(() => document.documentElement.scrollHeight)
  await page.setViewportSize({ width: 1280, height })
  await page.mouse.move(1279, height - 1)
  await page.screenshot({ path })
  console.log(`wrote ${path}`)
  await page.setViewportSize({ width: 1280, height: 800 })
}

/**
 * Changing an order on the member's order page: a pending live order whose
 * item gets a new quantity and personalization, as the page shows it
 * afterwards (its controls, the change on the timeline). Answers the order's
 * id for the console's picture.
 */
export async function orderEditPage(signedIn: Awaited<ReturnType<typeof dashboardPages>>) {
  const { page, base, token, orgId } = signedIn
  const call = async <T>(method: string, path: string, auth: string, body?: unknown): Promise<T> => {
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
  const { key } = await call<{ key: string }>('POST', `/admin/v1/organizations/${orgId}/api-keys`, token, {
    environment: 'live',
    scopes: ['orders:write'],
  })
  const { order } = await call<{ order: { id: string } }>('POST', '/v1/orders', key, {
    external_order_id: 'SHOP-10495',
    customer: { name: 'Ines Duarte', email: 'ines@example.com' },
    currency: 'EUR',
    total_amount: 29.8,
    items: [
      {
        sku: 'MUG-WHITE-330',
        name: 'White mug 330 ml',
        quantity: 1,
        price: 14.9,
        personalization: { name: 'Ines', color: 'Coral' },
      },
    ],
  })
  await page.goto(`${base}/dashboard/orders/${order.id}`)
  await page.getByRole('heading', { name: 'Order SHOP-10495', level: 1 }).waitFor()
  await page.getByRole('button', { name: 'Change item 1' }).click()
  const dialog = page.getByRole('dialog', { name: /^Change item 1/ })
  await dialog.getByRole('textbox', { name: 'Quantity' }).fill('2')
  await dialog.getByRole('textbox', { name: 'Field 1 value' }).fill('Inês')
  await dialog.getByRole('button', { name: 'Save item 1' }).click()
  await dialog.waitFor({ state: 'detached' })
  await page.getByText(/ changed order .*: quantity of item 1 /).waitFor()
  await wholePage(page, 'docs/images/dashboard-order-edit.png')
  return order.id
}

/** The console's order page for the same order, once production started: the operator may still change it. */
export async function consoleOrderPage(page: Page, base: string, orderId: string) {
  await page.goto(`${base}/dashboard/operator/orders/${orderId}`)
  await page.getByRole('heading', { name: 'Order SHOP-10495', level: 1 }).waitFor()
  await page.getByRole('button', { name: 'Change item 1' }).waitFor()
  await page
    .getByText(/ changed order /)
    .first()
    .waitFor()
  await wholePage(page, 'docs/images/console-order.png')
}
