import type { Page } from 'playwright-core'
import { orderBody } from '../../test/helpers/app.ts'

/**
 * Requests, as the developer of the webhooks pictures: the shop's live key
 * lists and reads orders, sends one the service refuses and one it accepts;
 * then the log and the refused request, its body beside the answer.
 */
export async function requestsPages({ page, base, live }: { page: Page; base: string; live: string }) {
  const send = (method: string, path: string, body?: unknown) =>
    fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${live}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
  await send('GET', '/v1/orders?limit=10')
  const refused = await send('POST', '/v1/orders', {
    ...orderBody({ external_order_id: 'SHOP-20417' }),
    currency: 'euro',
    items: [{ sku: 'POSTER-A2', name: 'Poster A2', quantity: 0, price: 19.9 }],
  })
  const requestId = refused.headers.get('x-request-id')
  await send('GET', '/v1/orders/ord_missing')
  await send('POST', '/v1/orders', orderBody({ external_order_id: 'SHOP-20418' }))
  await send('GET', '/v1/orders?limit=10')

  await page.goto(`${base}/dashboard/requests?environment=live`)
  const log = page.getByRole('table', { name: 'Live requests, newest first' })
  // The log is written just after each answer: wait for the last request.
  await log.getByRole('row').nth(9).waitFor()
  await page.mouse.move(1279, 719)
  await page.screenshot({ path: 'docs/images/dashboard-requests.png', fullPage: true })
  console.log('wrote docs/images/dashboard-requests.png')

  await page.goto(`${base}/dashboard/requests?environment=live&request_id=${requestId}`)
  await log.getByRole('link').click()
  await page.getByRole('region', { name: 'Answer' }).getByText('validation_failed').first().waitFor()
  await page.mouse.move(1279, 719)
  await page.screenshot({ path: 'docs/images/dashboard-request.png', fullPage: true })
  console.log('wrote docs/images/dashboard-request.png')
}
