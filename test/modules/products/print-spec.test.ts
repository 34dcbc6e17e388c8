import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { before, describe, test } from 'node:test'
import { useTestApp } from '../../helpers/app.ts'
import { memberOf } from '../../helpers/dashboard.ts'
import { assertError, assertValidation } from '../../helpers/errors.ts'

/** A product's print specifications: set, shown, audited, removed; bad input changes nothing. */
describe("a product's print specifications", () => {
  const t = useTestApp()
  let developer: Awaited<ReturnType<typeof memberOf>>
  let viewer: Awaited<ReturnType<typeof memberOf>>
  let productId: string

  before(async () => {
    const org = await t.createOrganization('Spec Prints')
    developer = await memberOf(t, org.id, 'developer')
    viewer = await memberOf(t, org.id, 'viewer')
    const created = await developer.client.call('POST', '/products', { sku: 'POSTER-A2', name: 'Poster A2' })
    assert.equal(created.statusCode, 201, created.body)
    productId = created.json().data.product.id
    assert.equal(created.json().data.product.print_spec, null, 'none until set')
  })

  const stored = async () =>
    (
      await t.db
        .selectFrom('products')
        .select('print_spec')
        .where('id', '=', productId)
        .executeTakeFirstOrThrow()
    ).print_spec
  const put = (body: unknown, client = developer.client) =>
    client.call('PUT', `/products/${productId}/print-spec`, body)
  const lastSentence = async () =>
    (await developer.client.call('GET', '/audit-log?limit=1')).json().data[0].summary as string

  test('one spec for every file, the defaults filled in; shown on the list and said in the audit log', async () => {
    const res = await put({ print_spec: { default: { width_mm: 420, height_mm: 594, bleed_mm: 3 } } })
    assert.equal(res.statusCode, 200, res.body)
    const expected = {
      default: {
        width_mm: 420,
        height_mm: 594,
        min_dpi: 150,
        bleed_mm: 3,
        colour: 'any',
        pages: null,
        transparency: true,
      },
      roles: {},
    }
    assert.deepEqual(res.json().data.product.print_spec, expected)
    assert.deepEqual(await stored(), expected)
    const listed = (await viewer.client.call('GET', '/products')).json().data
    assert.deepEqual(listed.find((p: { id: string }) => p.id === productId).print_spec, expected)
    assert.equal(
      await lastSentence(),
      `${developer.email} set the print specification of product POSTER-A2: 420 \u00d7 594 mm, 150 dpi, 3 mm bleed`,
    )
  })

  test('a spec per file role, beside the default; null removes them', async () => {
    const res = await put({
      print_spec: {
        default: { width_mm: 95, height_mm: 200, min_dpi: 200 },
        roles: {
          front: {
            width_mm: 210,
            height_mm: 297,
            min_dpi: 300,
            colour: 'cmyk',
            pages: 1,
            transparency: false,
          },
        },
      },
    })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json().data.product.print_spec.roles.front, {
      width_mm: 210,
      height_mm: 297,
      min_dpi: 300,
      bleed_mm: 0,
      colour: 'cmyk',
      pages: 1,
      transparency: false,
    })
    assert.equal(
      await lastSentence(),
      `${developer.email} set the print specification of product POSTER-A2: 95 \u00d7 200 mm, 200 dpi; front 210 \u00d7 297 mm, 300 dpi, CMYK, 1 page, no transparency`,
    )
    const removed = await put({ print_spec: null })
    assert.equal(removed.statusCode, 200, removed.body)
    assert.equal(removed.json().data.product.print_spec, null)
    assert.equal(await stored(), null)
    assert.equal(
      await lastSentence(),
      `${developer.email} removed the print specification of product POSTER-A2`,
    )
  })

  test('bad input gets the documented error and changes nothing; only developers and owners set it', async () => {
    await put({ print_spec: { default: { width_mm: 100, height_mm: 100 } } })
    const before = await stored()
    const refusals: [unknown, [string, string][]][] = [
      [
        { print_spec: { default: { width_mm: 0, height_mm: 100 } } },
        [['too_small', 'print_spec.default.width_mm']],
      ],
      [
        { print_spec: { default: { width_mm: 100, height_mm: 100, min_dpi: 20 } } },
        [['too_small', 'print_spec.default.min_dpi']],
      ],
      [
        { print_spec: { default: { width_mm: 100, height_mm: 100, colour: 'grey' } } },
        [['invalid_format', 'print_spec.default.colour']],
      ],
      [{ print_spec: {} }, [['invalid_format', 'print_spec']]],
      [
        { print_spec: { roles: { 'fr\u0000nt': { width_mm: 100, height_mm: 100 } } } },
        [['invalid_format', 'print_spec.roles']],
      ],
    ]
    for (const [body, expected] of refusals) {
      assertValidation(await put(body), expected)
    }
    assertError(await put({ print_spec: null }, viewer.client), 403, 'role_required')
    assertError(
      await developer.client.call('PUT', `/products/${randomUUID()}/print-spec`, { print_spec: null }),
      404,
      'not_found',
    )
    const other = await t.createOrganization('Other Spec Prints')
    const stranger = await memberOf(t, other.id, 'owner')
    assertError(await put({ print_spec: null }, stranger.client), 404, 'not_found', "another organization's")
    assert.deepEqual(await stored(), before, 'unchanged')
  })

  test('the operator sets it on /admin/v1, audited as the operator token', async () => {
    const res = await t.admin('PUT', `/admin/v1/products/${productId}/print-spec`, {
      print_spec: { roles: { mug: { width_mm: 200, height_mm: 95 } } },
    })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(Object.keys(res.json().data.product.print_spec.roles), ['mug'])
    assert.equal(
      await lastSentence(),
      'operator token set the print specification of product POSTER-A2: mug 200 \u00d7 95 mm, 150 dpi',
    )
  })
})
