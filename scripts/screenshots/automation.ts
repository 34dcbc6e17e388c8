import type { Locator } from 'playwright-core'
import type { dashboardPages } from './dashboard.ts'

/** Fills a rule's form: conditions as [field, operator, value], actions as [action, value?]. */
async function fillRule(
  dialog: Locator,
  name: string,
  conditions: [string, string, string][],
  actions: [string, string?][],
) {
  await dialog.getByRole('textbox', { name: 'Name' }).fill(name)
  for (const [n, [field, operator, value]] of conditions.entries()) {
    if (n > 0) await dialog.getByRole('button', { name: 'Add a condition' }).click()
    await dialog.getByRole('combobox', { name: `Condition ${n + 1} field` }).selectOption({ label: field })
    await dialog
      .getByRole('combobox', { name: `Condition ${n + 1} operator` })
      .selectOption({ label: operator })
    await dialog.getByRole('textbox', { name: `Condition ${n + 1} value` }).fill(value)
  }
  for (const [n, [action, value]] of actions.entries()) {
    if (n > 0) await dialog.getByRole('button', { name: 'Add an action' }).click()
    await dialog
      .getByRole('combobox', { name: `Action ${n + 1}`, exact: true })
      .selectOption({ label: action })
    if (value !== undefined) await dialog.getByRole('textbox', { name: `Action ${n + 1} tag` }).fill(value)
  }
}

/**
 * The Automation page: two rules saved with the form, then a third being
 * written, dry-run against the live orders already received (one of them a
 * large mug order sent for it).
 */
export async function automationPage(signedIn: Awaited<ReturnType<typeof dashboardPages>>) {
  const { page, base, token, orgId } = signedIn
  const call = async <T>(path: string, auth: string, body: unknown): Promise<T> => {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`)
    return ((await res.json()) as { data: T }).data
  }
  const { key } = await call<{ key: string }>(`/admin/v1/organizations/${orgId}/api-keys`, token, {
    environment: 'live',
    scopes: ['orders:write'],
  })
  await call('/v1/orders', key, {
    external_order_id: 'SHOP-10520',
    customer: { name: 'Café Nord', email: 'orders@cafenord.example' },
    currency: 'EUR',
    total_amount: 894,
    items: [{ sku: 'MUG-WHITE-330', name: 'White mug 330 ml', quantity: 60, price: 14.9 }],
  })

  await page.setViewportSize({ width: 1280, height: 800 })
  await page.goto(`${base}/dashboard/automation`)
  await page.getByRole('heading', { name: 'Automation', level: 1 }).waitFor()
  const dialog = page.getByRole('dialog')
  for (const [name, conditions, actions] of [
    ['Posters to the partner', [['Item SKU', 'starts with', 'POSTER']], [['Produce by partner']]],
    ['VIP rush', [['Customer email domain', 'is', 'vip.example.com']], [['Priority']]],
  ] as [string, [string, string, string][], [string, string?][]][]) {
    await page.getByRole('button', { name: 'New rule' }).click()
    await fillRule(dialog, name, conditions, actions)
    await dialog.getByRole('button', { name: 'Save rule' }).click()
    await dialog.waitFor({ state: 'detached' })
  }
  await page.getByRole('button', { name: 'New rule' }).click()
  await fillRule(
    dialog,
    'Large mugs',
    [
      ['Item SKU', 'starts with', 'MUG'],
      ['Item quantity', 'greater than', '50'],
    ],
    [['Hold for review'], ['Tag', 'large']],
  )
  await dialog.getByRole('button', { name: 'Dry run' }).click()
  await dialog.getByText(/^This rule would have matched 1 of your last \d+ live orders\.$/).waitFor()
  // Tall enough for the whole form, its dry run and the rules behind it.
  await page.setViewportSize({ width: 1280, height: 1240 })
  await page.mouse.move(1279, 1239)
  await page.waitForTimeout(300) // the dialog settles at its new size
  const file = 'docs/images/dashboard-automation.png'
  await page.screenshot({ path: file })
  console.log(`wrote ${file}`)
  await dialog.getByRole('button', { name: 'Cancel' }).click()
  await page.setViewportSize({ width: 1280, height: 800 })
}
