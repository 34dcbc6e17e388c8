import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser, Locator, Page } from 'playwright-core'
import { orderBody, type TestApp } from '../helpers/app.ts'
import {
  assertAccessible,
  browserSkip,
  closeAll,
  signedInContext,
  startBrowserApp,
  watchedPages,
} from '../helpers/browser.ts'
import { type DashboardClient, memberOf, operatorOf } from '../helpers/dashboard.ts'
import { createOrder } from '../helpers/order-files.ts'

type Member = Awaited<ReturnType<typeof memberOf>>

/**
 * Opens New rule and fills in "Large mugs" as far as its conditions go: Item
 * SKU starts with MUG, and Item quantity, whose operator and value are the
 * test's. Returns the dialog.
 */
async function newLargeMugsRule(page: Page): Promise<Locator> {
  await page.getByRole('button', { name: 'New rule' }).click()
  const dialog = page.getByRole('dialog', { name: 'New rule' })
  await dialog.getByRole('textbox', { name: 'Name' }).fill('Large mugs')
  await dialog.getByRole('combobox', { name: 'Condition 1 field' }).selectOption({ label: 'Item SKU' })
  await dialog.getByRole('combobox', { name: 'Condition 1 operator' }).selectOption({ label: 'starts with' })
  await dialog.getByRole('textbox', { name: 'Condition 1 value' }).fill('MUG')
  await dialog.getByRole('button', { name: 'Add a condition' }).click()
  await dialog.getByRole('combobox', { name: 'Condition 2 field' }).selectOption({ label: 'Item quantity' })
  return dialog
}

/**
 * Automation in headless Chromium, on one service: the Automation page (a
 * rule built with the form, dry-run, saved, switched, reordered, deleted; a
 * viewer and an operator read the rules); a rule from the form to the
 * console's board (a live order through /v1 arrives held, is released on its
 * page and becomes startable); and what rules did to orders (held apart on the
 * board, filters by tag and held, released by an owner, rush first). Each part
 * has its own organization; one operator reads the console; each member one
 * signed-in browser profile. No page has a CSP violation.
 */
describe('automation in a browser', { skip: browserSkip, timeout: 900_000 }, () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  let operator: Awaited<ReturnType<typeof operatorOf>>
  const pages = watchedPages()

  before(async () => {
    ;({ t, origin, browser } = await startBrowserApp())
    operator = await operatorOf(t)
  })
  after(() => closeAll(pages, browser, t))

  let consolePage: Page | undefined
  /** The operator's one page, for the console's board and organization page. */
  const operatorPage = async () => {
    consolePage ??= await pageOf(operator)
    return consolePage
  }

  /** A page in a signed-in profile of its own, watched for CSP violations. */
  const pageOf = async (member: { client: { cookies: Map<string, string> } }) =>
    pages.open(await signedInContext(browser, member.client, origin, 60_000))

  /**
   * The Automation page: a developer builds "Large mugs" with the form (a
   * refused value shown beside its input), dry-runs it against the live
   * orders created beforehand through /v1, saves it, switches it off and on,
   * moves it above an older rule and deletes a third; a viewer reads the list
   * without any control, an operator reads it in the console. Both widths
   * pass axe.
   */
  describe('the Automation page', () => {
    let org: Awaited<ReturnType<TestApp['tenant']>>
    let bigMug: { id: string; external: string }
    let developer: { client: DashboardClient }
    let viewer: Member

    before(async () => {
      org = await t.tenant('Automation Prints')
      const big = orderBody({
        external_order_id: 'BIG-MUG-1',
        items: [{ sku: 'MUG-XL', name: 'Large mug', quantity: 60 }],
      })
      bigMug = { id: (await createOrder(t, org.liveKey, big)).id, external: 'BIG-MUG-1' }
      await createOrder(t, org.liveKey, orderBody({ items: [{ sku: 'MUG-01', name: 'Mug', quantity: 2 }] }))
      await createOrder(
        t,
        org.liveKey,
        orderBody({ items: [{ sku: 'POSTER-A2', name: 'Poster', quantity: 80 }] }),
      )
      // A test order the rule would match: dry runs read live orders only.
      await createOrder(t, org.testKey, orderBody({ items: [{ sku: 'MUG-XL', name: 'Mug', quantity: 99 }] }))
      developer = await memberOf(t, org.orgId, 'developer')
      viewer = await memberOf(t, org.orgId, 'viewer')
      const older = await developer.client.call('POST', '/automation/rules', {
        name: 'VIP rush',
        conditions: [{ field: 'customer.email_domain', operator: 'equals', value: 'vip.example' }],
        actions: [{ type: 'priority', value: 'rush' }],
      })
      assert.equal(older.statusCode, 201, older.body)
    })

    /** The rules as stored: name, position, enabled. */
    async function stored() {
      const res = await developer.client.call('GET', '/automation/rules')
      assert.equal(res.statusCode, 200, res.body)
      return (res.json().data.rules as { name: string; position: number; enabled: boolean }[]).map((r) => [
        r.name,
        r.position,
        r.enabled,
      ])
    }

    /** Home, then Automation through the navigation. */
    async function openAutomationFromHome(page: Page) {
      await page.goto(`${origin}/dashboard/home`)
      await page
        .getByRole('navigation', { name: 'Dashboard' })
        .getByRole('link', { name: 'Automation' })
        .click()
      await page.getByRole('heading', { name: 'Automation', level: 1 }).waitFor()
    }

    const rule = (page: Page, name: RegExp) =>
      page.getByRole('listitem').filter({ has: page.getByRole('heading', { name }) })

    test('a developer creates, dry-runs, saves, switches and reorders a rule, and deletes another', async () => {
      const page = await pageOf(developer)
      await openAutomationFromHome(page)
      await page
        .getByText(
          'A rule change applies to orders arriving afterwards; orders already accepted keep what the rules did to them.',
        )
        .waitFor()
      await page.getByText('Rules run for live orders only.').waitFor()
      await rule(page, /^1\. VIP rush$/)
        .getByText('Then: Priority: rush')
        .waitFor()

      const dialog = await newLargeMugsRule(page)
      // Only the quantity's operators are offered.
      assert.deepEqual(
        await dialog
          .getByRole('combobox', { name: 'Condition 2 operator' })
          .locator('option')
          .allInnerTexts(),
        ['greater than', 'at least', 'less than', 'at most', 'equal to'],
      )
      await dialog
        .getByRole('combobox', { name: 'Condition 2 operator' })
        .selectOption({ label: 'greater than' })
      await dialog.getByRole('combobox', { name: 'Action 1' }).selectOption({ label: 'Hold for review' })
      await dialog.getByRole('button', { name: 'Add an action' }).click()
      await dialog.getByRole('combobox', { name: 'Action 2' }).selectOption({ label: 'Tag' })
      await dialog.getByRole('textbox', { name: 'Action 2 tag' }).fill('large')

      // The quantity left empty: the service's message shows under that input.
      await dialog.getByRole('button', { name: 'Dry run' }).click()
      const quantity = dialog.getByRole('textbox', { name: 'Condition 2 value' })
      await dialog.getByText('conditions.1.value is required for this operator.').waitFor()
      assert.equal(await quantity.getAttribute('aria-invalid'), 'true')
      await dialog.getByRole('alert').getByText('See the fields marked above.').waitFor()

      await quantity.fill('50')
      await dialog.getByRole('button', { name: 'Dry run' }).click()
      const result = dialog.getByRole('status').filter({ hasText: 'Dry run' })
      await result.getByText('This rule would have matched 1 of your last 3 live orders.').waitFor()
      const matched = result.getByRole('table', { name: 'Orders the rule would have matched' })
      assert.equal(await matched.getByRole('row').count(), 2)
      const link = matched.getByRole('link', { name: bigMug.external })
      assert.equal(await link.getAttribute('href'), `/dashboard/orders/${bigMug.id}`)
      assert.equal(await matched.getByRole('cell', { name: 'pending' }).count(), 1)
      assert.deepEqual(await stored(), [['VIP rush', 1, true]], 'a dry run saves nothing')
      await assertAccessible(page, 'Automation: the form with a dry run')

      await dialog.getByRole('button', { name: 'Save rule' }).click()
      await dialog.waitFor({ state: 'detached' })
      const mugs = rule(page, /^2\. Large mugs$/)
      await mugs.getByText('When: Item SKU starts with MUG; Item quantity greater than 50').waitFor()
      await mugs.getByText('Then: Hold for review; Tag "large"').waitFor()
      assert.deepEqual(await stored(), [
        ['VIP rush', 1, true],
        ['Large mugs', 2, true],
      ])

      const enabled = mugs.getByRole('switch', { name: 'Enabled' })
      await enabled.click()
      await page.waitForFunction(
        () => !(document.querySelectorAll('[role="switch"]')[1] as HTMLInputElement).checked,
      )
      await mugs.getByRole('switch', { name: 'Enabled', disabled: false }).waitFor()
      assert.deepEqual((await stored())[1], ['Large mugs', 2, false])
      await enabled.click()
      await page.waitForFunction(
        () => (document.querySelectorAll('[role="switch"]')[1] as HTMLInputElement).checked,
      )
      await mugs.getByRole('switch', { name: 'Enabled', disabled: false }).waitFor()
      assert.deepEqual((await stored())[1], ['Large mugs', 2, true])

      await mugs.getByRole('button', { name: 'Move up' }).click()
      await rule(page, /^1\. Large mugs$/).waitFor()
      await rule(page, /^2\. VIP rush$/).waitFor()
      assert.deepEqual(await stored(), [
        ['Large mugs', 1, true],
        ['VIP rush', 2, true],
      ])
      assert.equal(
        await rule(page, /Large mugs/)
          .getByRole('button', { name: 'Move up' })
          .isDisabled(),
        true,
      )

      // A third rule, deleted after confirming: the list is back to two.
      const extra = await developer.client.call('POST', '/automation/rules', {
        name: 'Short lived',
        actions: [{ type: 'tag', value: 'temp' }],
      })
      assert.equal(extra.statusCode, 201, extra.body)
      await page.reload()
      await rule(page, /^3\. Short lived$/)
        .getByRole('button', { name: 'Delete' })
        .click()
      const confirm = page.getByRole('dialog', { name: 'Delete the rule "Short lived"?' })
      await confirm.getByText('orders it already acted on keep what it did', { exact: false }).waitFor()
      await confirm.getByRole('button', { name: 'Delete rule' }).click()
      await confirm.waitFor({ state: 'detached' })
      await rule(page, /Short lived/).waitFor({ state: 'detached' })
      assert.deepEqual(await stored(), [
        ['Large mugs', 1, true],
        ['VIP rush', 2, true],
      ])
      await assertAccessible(page, 'Automation at 1280 px')

      await page.setViewportSize({ width: 390, height: 844 })
      await rule(page, /Large mugs/)
        .getByRole('button', { name: 'Edit' })
        .click()
      const edit = page.getByRole('dialog', { name: 'Edit rule: Large mugs' })
      assert.equal(await edit.getByRole('textbox', { name: 'Condition 1 value' }).inputValue(), 'MUG')
      assert.equal(await edit.getByRole('textbox', { name: 'Condition 2 value' }).inputValue(), '50')
      assert.equal(await edit.getByRole('textbox', { name: 'Action 2 tag' }).inputValue(), 'large')
      await assertAccessible(page, 'Automation: the form at 390 px')
      await edit.getByRole('button', { name: 'Cancel' }).click()
      await edit.waitFor({ state: 'detached' })
      assert.ok(
        await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
        'nothing wider than the phone',
      )
      await assertAccessible(page, 'Automation at 390 px')
    })

    test('a viewer reads the rules without any control', async () => {
      const page = await pageOf(viewer)
      await openAutomationFromHome(page)
      const list = page.getByRole('list', { name: 'Rules in run order' })
      await list.getByRole('heading', { name: /Large mugs/ }).waitFor()
      assert.deepEqual(await list.getByRole('heading').allInnerTexts(), ['1. Large mugs', '2. VIP rush'])
      await rule(page, /Large mugs/)
        .getByText('Enabled', { exact: true })
        .waitFor()
      assert.equal(await page.getByRole('main').getByRole('button').count(), 0, 'no button')
      assert.equal(await page.getByRole('switch').count(), 0, 'no switch')
      await assertAccessible(page, 'Automation (viewer)')
      await page.setViewportSize({ width: 390, height: 844 })
      await assertAccessible(page, 'Automation (viewer) at 390 px')
    })

    test("an operator reads the rules on the organization's console page", async () => {
      const page = await operatorPage()
      await page.goto(`${origin}/dashboard/operator/organizations/${org.orgId}`)
      const table = page.getByRole('table', { name: 'Automation rules, in the order they run' })
      await table.waitFor()
      // The text as written (the badge shows it in capitals).
      assert.deepEqual(await table.getByRole('row').nth(1).getByRole('cell').allTextContents(), [
        '1',
        'Large mugs',
        'Enabled',
        'Item SKU starts with MUG; Item quantity greater than 50',
        'Hold for review; Tag "large"',
      ])
      assert.equal(await table.getByRole('row').count(), 3)
      await assertAccessible(page, "The console's organization page with its rules")
    })
  })

  /**
   * A rule from the form to the board, as a developer and an operator would
   * do it: built in the form and dry-run against the organization's live
   * orders, saved; a matching live order sent through /v1 arrives held; the
   * console's board keeps it apart until the developer releases it on the
   * order's page, and then it is startable on the board.
   */
  describe('an automation rule from the form to the board', () => {
    let org: Awaited<ReturnType<TestApp['tenant']>>
    let developer: Member

    before(async () => {
      org = await t.tenant('Journey Automation Prints')
      const earlier = orderBody({
        external_order_id: 'EARLIER-BIG',
        items: [{ sku: 'MUG-XL', name: 'Large mug', quantity: 70 }],
      })
      await createOrder(t, org.liveKey, earlier)
      await createOrder(t, org.liveKey, orderBody({ items: [{ sku: 'CARD', name: 'Card', quantity: 1 }] }))
      developer = await memberOf(t, org.orgId, 'developer')
    })

    test('create, dry-run, an order through /v1 held, released, startable on the board', async () => {
      const page = await pageOf(developer)
      await page.goto(`${origin}/dashboard/automation`)
      await page.getByRole('heading', { name: 'Automation', level: 1 }).waitFor()
      const dialog = await newLargeMugsRule(page)
      await dialog
        .getByRole('combobox', { name: 'Condition 2 operator' })
        .selectOption({ label: 'greater than' })
      await dialog.getByRole('textbox', { name: 'Condition 2 value' }).fill('50')
      await dialog.getByRole('combobox', { name: 'Action 1' }).selectOption({ label: 'Hold for review' })
      await dialog.getByRole('button', { name: 'Dry run' }).click()
      const result = dialog.getByRole('status').filter({ hasText: 'Dry run' })
      await result.getByText('This rule would have matched 1 of your last 2 live orders.').waitFor()
      await result.getByRole('link', { name: 'EARLIER-BIG' }).waitFor()
      await dialog.getByRole('button', { name: 'Save rule' }).click()
      await dialog.waitFor({ state: 'detached' })
      await page.getByRole('heading', { name: /^1\. Large mugs$/ }).waitFor()

      // A live order through the API: accepted, and held by the rule.
      const body = orderBody({
        external_order_id: 'JOURNEY-MUGS',
        items: [{ sku: 'MUG-WHITE', name: 'White mug', quantity: 120 }],
      })
      const res = await t.api(org.liveKey, 'POST', '/v1/orders', body)
      assert.equal(res.statusCode, 201, res.body)
      const orderId = res.json().data.order.id as string

      const board = await operatorPage()
      await board.goto(`${origin}/dashboard/operator/production?organization_id=${org.orgId}`)
      const startable = board.getByRole('table', { name: /rush first/ })
      await startable.waitFor()
      assert.equal(
        await startable.getByRole('link', { name: 'Open production order JOURNEY-MUGS' }).count(),
        0,
      )
      await board.getByText('Held for review (1)').click()
      const held = board.getByRole('table', { name: /held for review/ })
      await held.getByRole('link', { name: 'Open production order JOURNEY-MUGS' }).waitFor()
      await held.getByText("Held for review by rule 'Large mugs'", { exact: false }).waitFor()

      await page.goto(`${origin}/dashboard/orders/${orderId}`)
      await page.getByRole('heading', { name: 'Order JOURNEY-MUGS', level: 1 }).waitFor()
      await page
        .getByText(
          "Held for review by rule 'Large mugs': Item SKU starts with MUG; Item quantity greater than 50.",
          { exact: false },
        )
        .waitFor()
      await page.getByRole('button', { name: 'Release' }).click()
      await page
        .getByRole('region', { name: 'Timeline' })
        .getByText(
          `${developer.email} released order JOURNEY-MUGS from its hold by rule \u2018Large mugs\u2019`,
        )
        .waitFor()
      await assertAccessible(page, 'the released order')

      await board.getByText(/^Pending \(\d+\)$/).click()
      await board
        .getByRole('table', { name: /rush first/ })
        .getByRole('button', { name: 'Start production: JOURNEY-MUGS' })
        .waitFor()
      await board.getByText('Held for review (0)').waitFor()
    })
  })

  /**
   * What automation rules did: the console's board shows a held order apart
   * with its rule and no Start button; Orders filters by tag and held; the
   * order page says why it is held, with the rules on its timeline, and an
   * owner releases it; the board then lists it as startable, after the rush
   * order. A viewer sees no Release button.
   */
  describe('held, rush and tagged orders', () => {
    let org: Awaited<ReturnType<TestApp['tenant']>>
    let owner: Member
    let viewer: Member
    const held = { id: '', external: '' }
    const rush = { id: '', external: '' }
    let another: string

    before(async () => {
      org = await t.tenant('Browser Held Prints')
      owner = await memberOf(t, org.orgId, 'owner')
      viewer = await memberOf(t, org.orgId, 'viewer')
      for (const rule of [
        {
          name: 'Large mugs',
          conditions: [
            { field: 'item.sku', operator: 'starts_with', value: 'MUG' },
            { field: 'item.quantity', operator: 'gt', value: 50 },
          ],
          actions: [{ type: 'hold' }, { type: 'tag', value: 'large' }],
        },
        {
          name: 'Rush cards',
          conditions: [{ field: 'item.sku', operator: 'equals', value: 'CARD' }],
          actions: [{ type: 'priority', value: 'rush' }],
        },
      ]) {
        const res = await owner.client.call('POST', '/automation/rules', rule)
        assert.equal(res.statusCode, 201, res.body)
      }
      const mugs = orderBody({ items: [{ sku: 'MUG-01', name: 'Mug', quantity: 80 }] })
      held.id = (await createOrder(t, org.liveKey, mugs)).id
      held.external = mugs.external_order_id
      const cards = orderBody({ items: [{ sku: 'CARD', name: 'Card', quantity: 1 }] })
      rush.id = (await createOrder(t, org.liveKey, cards)).id
      rush.external = cards.external_order_id
    })

    test('the board shows the held order apart; Orders filters; the order page releases it; the board starts it after the rush order', async () => {
      const console = await operatorPage()
      await console.goto(`${origin}/dashboard/operator/production?organization_id=${org.orgId}`)
      const board = console.getByRole('table', { name: /rush first/ })
      await board.getByRole('link', { name: `Open production order ${rush.external}` }).waitFor()
      assert.equal(
        await board.getByRole('link', { name: `Open production order ${held.external}` }).count(),
        0,
      )
      await console.getByText('Held for review (1)').click()
      const apart = console.getByRole('table', { name: /held for review/ })
      await apart.getByRole('link', { name: `Open production order ${held.external}` }).waitFor()
      await apart.getByText("Held for review by rule 'Large mugs'", { exact: false }).waitFor()
      assert.equal(await apart.getByRole('button', { name: `Start production: ${held.external}` }).count(), 0)
      await assertAccessible(console, 'board, held for review')

      const page = await pageOf(owner)
      await page.goto(`${origin}/dashboard/orders`)
      await page.getByRole('textbox', { name: 'Tag' }).fill('large')
      await page.getByRole('button', { name: 'Search' }).click()
      await page.getByRole('link', { name: held.external }).waitFor()
      await page.getByRole('link', { name: rush.external }).waitFor({ state: 'detached' })
      await page.getByRole('button', { name: 'Clear filters' }).click()
      await page.waitForURL((url) => !url.searchParams.has('tag'))
      await page.getByRole('combobox', { name: 'Held for review' }).selectOption('true')
      await page.getByRole('link', { name: held.external }).waitFor()
      await page.getByRole('link', { name: rush.external }).waitFor({ state: 'detached' })
      await assertAccessible(page, 'orders filtered by held')

      await page.getByRole('link', { name: held.external }).click()
      await page.getByRole('heading', { name: `Order ${held.external}`, level: 1 }).waitFor()
      await page
        .getByText(
          "Held for review by rule 'Large mugs': Item SKU starts with MUG; Item quantity greater than 50.",
          { exact: false },
        )
        .waitFor()
      const timeline = page.getByRole('region', { name: 'Timeline' })
      await timeline
        .getByText(`Rule 'Large mugs' held this order for review and tagged this order "large"`)
        .waitFor()
      await assertAccessible(page, 'held order page')
      await page.getByRole('button', { name: 'Release' }).click()
      await timeline
        .getByText(
          `${owner.email} released order ${held.external} from its hold by rule \u2018Large mugs\u2019`,
        )
        .waitFor()
      await page.getByRole('button', { name: 'Release' }).waitFor({ state: 'detached' })

      // Back on the board: startable now, after the rush order.
      await console.getByText(/^Pending \(\d+\)$/).click()
      const pending = console.getByRole('table', { name: /rush first/ })
      await pending.getByRole('button', { name: `Start production: ${held.external}` }).waitFor()
      const links = await pending.getByRole('link', { name: /^Open production order/ }).allTextContents()
      assert.deepEqual(links, [rush.external, held.external])
      await assertAccessible(console, 'board after the release')

      // A viewer sees why the order was held (nothing to release now) and no Release button.
      another = (
        await createOrder(
          t,
          org.liveKey,
          orderBody({ items: [{ sku: 'MUG-02', name: 'Mug', quantity: 99 }] }),
        )
      ).id
      const viewing = await pageOf(viewer)
      await viewing.goto(`${origin}/dashboard/orders/${another}`)
      await viewing.getByText("Held for review by rule 'Large mugs'", { exact: false }).waitFor()
      assert.equal(await viewing.getByRole('button', { name: 'Release' }).count(), 0)
    })
  })

  test('no page had a CSP violation', () => {
    pages.assertNoCspViolation(6)
  })
})
