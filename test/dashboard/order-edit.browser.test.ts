import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser } from 'playwright-core'
import { orderBody, type TestApp } from '../helpers/app.ts'
import {
  assertAccessible,
  browserSkip,
  closeAll,
  signedInContext,
  startBrowserApp,
  watchPage,
} from '../helpers/browser.ts'
import { memberOf, operatorOf } from '../helpers/dashboard.ts'
import { createOrder, PDF, png, uploadFile } from '../helpers/order-files.ts'

/**
 * Changing an accepted order as a member would, in headless Chromium: a
 * developer changes an item's quantity and personalization, removes a file and
 * adds one from the computer, sees the change on the timeline; once
 * production started the page says why items no longer change, the operator
 * changes the quantity from the console, and the developer cancels the order;
 * a viewer sees the order without any control.
 */
describe('changing an order in a browser', { skip: browserSkip, timeout: 300_000 }, () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  let org: Awaited<ReturnType<TestApp['tenant']>>
  let order: { id: string; external: string }

  before(async () => {
    ;({ t, origin, browser } = await startBrowserApp())
    org = await t.tenant('Browser Edit Prints')
    const front = await uploadFile(t, org.liveKey, png([200, 40, 40]), 'front.png')
    const proof = await uploadFile(t, org.liveKey, PDF, 'proof.pdf')
    const body = orderBody({
      items: [
        {
          sku: 'MUG-WHITE',
          name: 'Mug',
          quantity: 2,
          personalization: { text: 'Hello' },
          files: [{ upload_id: front, role: 'front' }, { upload_id: proof }],
        },
      ],
    })
    order = { id: (await createOrder(t, org.liveKey, body)).id, external: body.external_order_id }
  })
  after(() => closeAll(browser, t))

  test('a developer changes an item and its files, sees it on the timeline and cancels; a viewer sees no controls', async () => {
    const developer = await memberOf(t, org.orgId, 'developer')
    const page = await (await signedInContext(browser, developer.client, origin)).newPage()
    const seen = await watchPage(page)
    await page.goto(`${origin}/dashboard/orders/${order.id}`)
    await page.getByRole('heading', { name: `Order ${order.external}`, level: 1 }).waitFor()
    const item = page.getByRole('region', { name: 'Item 1: Mug' })

    await item.getByRole('button', { name: 'Change item 1' }).click()
    const dialog = page.getByRole('dialog', { name: 'Change item 1: Mug' })
    await dialog.getByRole('textbox', { name: 'Quantity' }).fill('3')
    await dialog.getByRole('textbox', { name: 'Field 1 value' }).fill('Hello Jo')
    await dialog.getByRole('button', { name: 'Save item 1' }).click()
    await dialog.waitFor({ state: 'detached' })
    await item.getByText('Quantity: 3').waitFor()
    await item.getByRole('cell', { name: 'Hello Jo', exact: true }).waitFor()

    await item.getByRole('button', { name: 'Remove proof.pdf' }).click()
    await page
      .getByRole('dialog', { name: 'Remove proof.pdf?' })
      .getByRole('button', { name: 'Remove file' })
      .click()
    await item.getByRole('link', { name: 'proof.pdf' }).waitFor({ state: 'detached' })

    await item
      .getByLabel('File to add to item 1')
      .setInputFiles({ name: 'back.png', mimeType: 'image/png', buffer: png([20, 160, 60]) })
    await item.getByRole('textbox', { name: 'Role (optional)' }).fill('back')
    await item.getByRole('button', { name: 'Add file to item 1' }).click()
    await item.getByRole('link', { name: 'back.png' }).waitFor()
    await item.getByText('Role: back').waitFor()

    const timeline = page.getByRole('table', { name: 'Events of the order and their webhook deliveries' })
    await timeline
      .getByText(`Changed by ${developer.email}: items[0].quantity, items[0].personalization`)
      .waitFor()
    await timeline.getByText(`Changed by ${developer.email}: items[0].files`).first().waitFor()
    await timeline.getByText('order.updated').first().waitFor()
    await assertAccessible(page, 'order page with its controls')

    // Production starts: the page says why items no longer change; the operator still changes them.
    const view = (await t.admin('GET', `/admin/v1/orders/${order.id}`)).json().data.order
    const started = await t.admin('POST', `/admin/v1/production-orders/${view.production_order.id}/status`, {
      status: 'in_progress',
    })
    assert.equal(started.statusCode, 200, started.body)
    await page
      .getByText(
        /Production has started \(in_progress\): the customer and the items can no longer be changed here/,
      )
      .waitFor({ timeout: 30_000 })
    assert.equal(await item.getByRole('button', { name: 'Change item 1' }).count(), 0)
    const operator = await operatorOf(t)
    const console = await (await signedInContext(browser, operator.client, origin)).newPage()
    await console.goto(`${origin}/dashboard/operator/orders/${order.id}`)
    const consoleItem = console.getByRole('region', { name: 'Item 1: Mug' })
    await consoleItem.getByRole('button', { name: 'Change item 1' }).click()
    const consoleDialog = console.getByRole('dialog', { name: 'Change item 1: Mug' })
    await consoleDialog.getByRole('textbox', { name: 'Quantity' }).fill('4')
    await consoleDialog.getByRole('button', { name: 'Save item 1' }).click()
    await consoleItem.getByText('Quantity: 4').waitFor()
    await assertAccessible(console, 'console order page')
    await console.context().close()
    await item.getByText('Quantity: 4').waitFor({ timeout: 30_000 })
    await timeline.getByText(`Changed by the operator ${operator.email}: items[0].quantity`).waitFor()

    await page.getByRole('button', { name: 'Cancel order' }).click()
    const cancel = page.getByRole('dialog', { name: `Cancel order ${order.external}?` })
    await cancel
      .getByText(
        'Production stops and the order and its unfinished items become cancelled. Your live webhook endpoints receive order.cancelled. You cannot undo this.',
      )
      .waitFor()
    const open = (await t.admin('GET', `/admin/v1/orders/${order.id}`)).json().data.order
    assert.equal(open.status, 'in_production', 'not cancelled by the first click')
    await cancel.getByRole('button', { name: 'Cancel the order' }).click()
    await timeline.getByText(`Cancelled by ${developer.email}`).waitFor()
    await timeline.getByText('order.cancelled').waitFor()
    await page.getByText('This order is cancelled: it can no longer be changed.').waitFor()
    assert.equal(await page.getByRole('button', { name: 'Change item 1' }).count(), 0)
    const stored = (await t.admin('GET', `/admin/v1/orders/${order.id}`)).json().data.order
    assert.equal(stored.status, 'cancelled')
    assert.equal(stored.items[0].quantity, 4)
    assert.deepEqual(
      stored.items[0].files.map((f: { name: string }) => f.name),
      ['front.png', 'back.png'],
    )
    assert.deepEqual(seen.cspViolations, [])
    await page.context().close()

    const viewer = await memberOf(t, org.orgId, 'viewer')
    const viewing = await (await signedInContext(browser, viewer.client, origin)).newPage()
    await viewing.goto(`${origin}/dashboard/orders/${order.id}`)
    await viewing.getByRole('region', { name: 'Item 1: Mug' }).getByText('Quantity: 4').waitFor()
    await viewing
      .getByText(`Changed by ${developer.email}: items[0].quantity, items[0].personalization`)
      .waitFor()
    for (const name of [/^Change/, /^Cancel/, /^Remove/, /^Add file/]) {
      assert.equal(await viewing.getByRole('button', { name }).count(), 0, `no ${name} for a viewer`)
    }
    await viewing.context().close()
  })
})
