/**
 * npm run screenshots: the pictures of docs/images, taken from the real
 * service (src/main.ts on a fresh embedded database) in headless Chromium.
 * Needs Debian's chromium (apt-get install -y chromium).
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { CHROMIUM_OPTIONS } from '../test/helpers/browser.ts'
import { startServiceProcess } from '../test/helpers/service-process.ts'
import { closedPort } from '../test/helpers/webhook-targets.ts'
import { automationPage } from './screenshots/automation.ts'
import { consolePages } from './screenshots/console.ts'
import { dashboardPages, homeAndOrdersPages } from './screenshots/dashboard.ts'
import { keysAndWebhooksPages } from './screenshots/keys-webhooks.ts'
import { orderEditPage } from './screenshots/order-edit.ts'
import { orderAndProductPages } from './screenshots/order-products.ts'
import { personalDataPage } from './screenshots/personal-data.ts'
import { phonePages } from './screenshots/phone.ts'
import { productionFloorPages } from './screenshots/production-floor.ts'
import { requestsPages } from './screenshots/requests.ts'

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
const browser = await chromium.launch(CHROMIUM_OPTIONS)
const shots = { port, dataDir, browser, orderEndpointPort }

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
  const signedIn = await dashboardPages(shots)
  await homeAndOrdersPages(signedIn)
  await orderAndProductPages(shots, signedIn)
  await phonePages(shots, signedIn)
  const editedOrderId = await orderEditPage(signedIn)
  await requestsPages(await keysAndWebhooksPages(shots))
  await consolePages(shots, editedOrderId)
  await productionFloorPages(shots)
  await automationPage(signedIn)
  await personalDataPage(signedIn)
} finally {
  await browser.close()
  service.child.kill('SIGTERM')
  await service.exited
  await rm(dataDir, { recursive: true, force: true })
}
