import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import { PDFDocument } from '@cantoo/pdf-lib'
import sharp from 'sharp'
import { foldOrderChanges } from '../../../src/modules/orders/changes/changes.repo.ts'
import { createPreflightService } from '../../../src/modules/preflight/index.ts'
import { orderBody, useTestApp } from '../../helpers/app.ts'
import { memberOf, operatorOf } from '../../helpers/dashboard.ts'
import { whileHealthzPolled } from '../../helpers/event-loop.ts'
import { createOrder, uploadFile } from '../../helpers/order-files.ts'

/**
 * Preflight end to end: orders with files queued by the fold, their files
 * measured by the runner, checked against their products' print specs, shown
 * with thumbnails; a spec change checks open orders again; hostile files are
 * recorded as not measurable; two runners on one database share the queue.
 */
describe('preflight of production files', () => {
  const t = useTestApp()
  let orgId: string
  let key: string
  let developer: Awaited<ReturnType<typeof memberOf>>
  let viewer: Awaited<ReturnType<typeof memberOf>>
  let stranger: Awaited<ReturnType<typeof memberOf>>
  let posterId: string

  before(async () => {
    const tenant = await t.tenant('Preflight Prints')
    orgId = tenant.orgId
    key = tenant.liveKey
    developer = await memberOf(t, orgId, 'developer')
    viewer = await memberOf(t, orgId, 'viewer')
    stranger = await memberOf(t, (await t.createOrganization('Elsewhere')).id, 'owner')
    const created = await developer.client.call('POST', '/products', { sku: 'POSTER-A2', name: 'Poster A2' })
    assert.equal(created.statusCode, 201, created.body)
    posterId = created.json().data.product.id
    const spec = await developer.client.call('PUT', `/products/${posterId}/print-spec`, {
      print_spec: { default: { width_mm: 420, height_mm: 594, colour: 'cmyk', pages: 1 } },
    })
    assert.equal(spec.statusCode, 200, spec.body)
  })

  /** Folds the orders in (which queues those with files), then checks everything queued. */
  const settle = async () => {
    while ((await t.db.transaction().execute((trx) => foldOrderChanges(trx, 100))) === 100) {}
    while ((await t.services.preflight.runOnce()) > 0) {}
  }

  const order = async (items: { sku: string; files: { upload_id: string; role?: string }[] }[]) =>
    (
      await createOrder(
        t,
        key,
        orderBody({
          items: items.map((i) => ({ name: i.sku, quantity: 1, price: 10, ...i })),
        }),
      )
    ).id

  const preflightOf = async (orderId: string, client = viewer.client) => {
    const res = await client.call('GET', `/orders/${orderId}/preflight`)
    assert.equal(res.statusCode, 200, res.body)
    return res.json().data
  }

  const verdict = async (orderId: string) =>
    t.db.selectFrom('order_preflight').selectAll().where('order_id', '=', orderId).executeTakeFirst()

  const rgbPng = (width: number, height: number) =>
    sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 40 } } })
      .png()
      .toBuffer()

  test('a 400 × 300 px PNG on a poster A2: problems with what to do, facts, a thumbnail, the stored verdict', async () => {
    const uploadId = await uploadFile(t, key, await rgbPng(400, 300), 'small.png')
    const orderId = await order([{ sku: 'POSTER-A2', files: [{ upload_id: uploadId }] }])
    const before = await preflightOf(orderId)
    assert.equal(before.status, 'pending', 'not measured until the fold and the runner have run')
    assert.equal(before.items[0].files[0].status, 'pending')
    await settle()

    const data = await preflightOf(orderId)
    assert.equal(data.status, 'problem')
    assert.equal(data.problems, 1)
    const file = data.items[0].files[0]
    assert.equal(file.status, 'problem')
    assert.equal(file.spec, '420 \u00d7 594 mm, 150 dpi, CMYK, 1 page')
    assert.deepEqual(
      file.checks.map((c: { check: string; verdict: string }) => [c.check, c.verdict]),
      [
        ['resolution', 'problem'],
        ['shape', 'problem'],
        ['colour', 'warning'],
      ],
    )
    // By hand: min(400 / (420 / 25.4), 300 / (594 / 25.4)) = min(24.19, 12.83) → 12 dpi;
    // 420 / 25.4 × 150 = 2480.3 → 2 481 px, 594 / 25.4 × 150 = 3507.9 → 3 508 px.
    assert.equal(
      file.checks[0].sentence,
      '400 \u00d7 300 px prints at 12 dpi, 150 asked. Upload at least 2\u2009481 \u00d7 3\u2009508 px for 420 \u00d7 594 mm at 150 dpi.',
    )
    assert.match(file.checks[2].sentence, /It is in RGB; the product is printed in CMYK/)
    assert.deepEqual(file.facts, ['400 \u00d7 300 px (PNG)', 'RGB, no ICC profile'])
    assert.equal(file.thumbnail, true)
    assert.equal(data.items[0].status, 'problem')

    const thumb = await viewer.client.call('GET', `/orders/${orderId}/files/${uploadId}/thumbnail`)
    assert.equal(thumb.statusCode, 200)
    assert.equal(thumb.headers['content-type'], 'image/webp')
    assert.match(String(thumb.headers['cache-control']), /private/)
    const picture = await sharp(thumb.rawPayload).metadata()
    assert.deepEqual([picture.format, picture.width, picture.height], ['webp', 320, 240])

    assert.deepEqual(
      { ...(await verdict(orderId)), checked_at: undefined },
      {
        order_id: orderId,
        organization_id: orgId,
        environment: 'live',
        verdict: 'problem',
        problems: 1,
        warnings: 0,
        checked_at: undefined,
        items: ['problem'],
      },
    )
    const queued = await t.db
      .selectFrom('preflight_queue')
      .select('order_id')
      .where('order_id', '=', orderId)
      .execute()
    assert.deepEqual(queued, [], 'taken off the queue once checked')
  })

  test('not checked, and why: an item without a product, a text file, a product without a spec', async () => {
    await developer.client.call('POST', '/products', { sku: 'MUG', name: 'Mug' })
    const png = await uploadFile(t, key, await rgbPng(50, 50), 'a.png')
    const text = await uploadFile(t, key, Buffer.from('just words\n'), 'notes.txt')
    const orderId = await order([
      { sku: 'UNKNOWN-SKU', files: [{ upload_id: png }] },
      { sku: 'POSTER-A2', files: [{ upload_id: text }] },
      { sku: 'MUG', files: [{ upload_id: png }] },
    ])
    await settle()
    const data = await preflightOf(orderId)
    assert.deepEqual(
      data.items.map((i: { files: { status: string; reason: string }[] }) => [
        i.files[0]!.status,
        i.files[0]!.reason,
      ]),
      [
        ['not_checked', 'Not checked: the item\u2019s SKU is not linked to a product.'],
        ['not_checked', 'Not checked: text/plain files are not print files.'],
        ['not_checked', 'Not checked: its product has no print specification.'],
      ],
    )
    assert.equal(data.status, 'not_checked')
    assert.equal((await verdict(orderId))?.verdict, 'not_checked')
  })

  test('a PDF of 3 pages for a 1-page product, its boxes and fonts measured; a spec change checks it again', async () => {
    const doc = await PDFDocument.create()
    for (let i = 0; i < 3; i++) doc.addPage([420 / (25.4 / 72), 594 / (25.4 / 72)]).drawText('Hello')
    const uploadId = await uploadFile(t, key, Buffer.from(await doc.save()), 'poster.pdf')
    const orderId = await order([{ sku: 'POSTER-A2', files: [{ upload_id: uploadId }] }])
    await settle()
    const file = (await preflightOf(orderId)).items[0].files[0]
    assert.equal(file.status, 'problem')
    const pages = file.checks.find((c: { check: string }) => c.check === 'pages')
    assert.deepEqual(pages, {
      check: 'pages',
      verdict: 'problem',
      sentence: 'It has 3 pages; the product takes 1 page.',
    })
    assert.ok(
      file.checks.some((c: { check: string; verdict: string }) => c.check === 'shape' && c.verdict === 'ok'),
    )
    assert.match(
      file.checks.find((c: { check: string }) => c.check === 'fonts').sentence,
      /^Fonts not embedded: Helvetica;/,
    )
    assert.deepEqual(file.facts.slice(0, 2), ['3 pages', 'First page: MediaBox 420 \u00d7 594 mm'])

    // Three pages asked, any colour: only the unembedded font is left, a warning.
    const spec = await developer.client.call('PUT', `/products/${posterId}/print-spec`, {
      print_spec: { default: { width_mm: 420, height_mm: 594, pages: 3 } },
    })
    assert.equal(spec.statusCode, 200, spec.body)
    const queued = await t.db
      .selectFrom('preflight_queue')
      .select('order_id')
      .where('order_id', '=', orderId)
      .execute()
    assert.equal(queued.length, 1, 'the open order is queued again with the spec change')
    await settle()
    assert.equal((await verdict(orderId))?.verdict, 'warning')
    assert.equal((await preflightOf(orderId)).status, 'warning')
    await developer.client.call('PUT', `/products/${posterId}/print-spec`, {
      print_spec: { default: { width_mm: 420, height_mm: 594, colour: 'cmyk', pages: 1 } },
    })
    await settle()
  })

  test('hostile and broken files are recorded as not measurable, with the reason; the order counts a problem', async () => {
    const bomb = await rgbPng(8, 8)
    // The IHDR claims 100 000 × 100 000 px (the CRC no longer matters to the header read).
    bomb.writeUInt32BE(100_000, 16)
    bomb.writeUInt32BE(100_000, 20)
    const doc = await PDFDocument.create()
    doc.addPage()
    const truncated = Buffer.from(await doc.save()).subarray(0, 200)
    const bombId = await uploadFile(t, key, bomb, 'bomb.png')
    const truncatedId = await uploadFile(t, key, Buffer.concat([truncated]), 'cut.pdf')
    const orderId = await order([
      { sku: 'POSTER-A2', files: [{ upload_id: bombId }, { upload_id: truncatedId }] },
    ])
    await settle()
    const data = await preflightOf(orderId)
    const [a, b] = data.items[0].files
    assert.equal(a.status, 'unmeasurable')
    assert.match(a.reason, /^Could not be measured: The image claims 100\u2009000 \u00d7 100\u2009000 px/)
    assert.equal(b.status, 'unmeasurable')
    assert.match(b.reason, /^Could not be measured: The PDF/)
    assert.equal(data.status, 'problem')
    assert.equal(data.problems, 2)
    const health = await t.app.inject({ method: 'GET', url: '/healthz' })
    assert.equal(health.statusCode, 200)
  })

  test('measuring a 64-megapixel PNG and a 2 000-page PDF holds no event loop: /healthz answers throughout', async () => {
    const big = await sharp({ create: { width: 8000, height: 8000, channels: 3, background: 'white' } })
      .png()
      .toBuffer()
    const doc = await PDFDocument.create()
    for (let i = 0; i < 2000; i++) doc.addPage([595, 842])
    const pages = Buffer.from(await doc.save())
    const orderId = await order([
      {
        sku: 'POSTER-A2',
        files: [
          { upload_id: await uploadFile(t, key, big, 'big.png') },
          { upload_id: await uploadFile(t, key, pages, 'pages.pdf') },
        ],
      },
    ])
    const { worstMs, loopMaxMs, polls } = await whileHealthzPolled(t.app, settle)
    const [png, pdf] = (await preflightOf(orderId)).items[0].files
    // Measured, both: the square PNG is not A2's shape, the PDF has 2 000 pages for 1.
    assert.equal(png.status, 'problem')
    assert.deepEqual(png.facts.slice(0, 1), ['8\u2009000 \u00d7 8\u2009000 px (PNG)'])
    assert.equal(pdf.status, 'problem')
    assert.equal(
      pdf.checks.find((c: { check: string }) => c.check === 'pages').sentence,
      'It has 2\u2009000 pages; the product takes 1 page.',
    )
    assert.ok(polls >= 1)
    assert.ok(loopMaxMs < 100, `event loop held ${loopMaxMs.toFixed(0)} ms`)
    // Wall time includes waiting for a core while other test files run.
    assert.ok(worstMs < 1000, `/healthz took ${worstMs.toFixed(0)} ms`)
  })

  test("another organization's order and a file of another order answer 404", async () => {
    const uploadId = await uploadFile(t, key, await rgbPng(40, 40), 'x.png')
    const orderId = await order([{ sku: 'POSTER-A2', files: [{ upload_id: uploadId }] }])
    await settle()
    for (const path of [`/orders/${orderId}/preflight`, `/orders/${orderId}/files/${uploadId}/thumbnail`]) {
      const res = await stranger.client.call('GET', path)
      assert.equal(res.statusCode, 404, path)
    }
    const other = await order([{ sku: 'POSTER-A2', files: [] }])
    const res = await viewer.client.call('GET', `/orders/${other}/files/${uploadId}/thumbnail`)
    assert.equal(res.statusCode, 404)
  })

  test('the Orders list and the production board filter by the print check: problems, warnings, neither', async () => {
    const card = await developer.client.call('POST', '/products', { sku: 'CARD-50', name: 'Card' })
    assert.equal(card.statusCode, 201, card.body)
    const spec = await developer.client.call('PUT', `/products/${card.json().data.product.id}/print-spec`, {
      print_spec: { default: { width_mm: 50, height_mm: 50, colour: 'cmyk' } },
    })
    assert.equal(spec.statusCode, 200, spec.body)
    // 300 px on 50 mm is 152 dpi: only the colour (RGB for CMYK) is left, a warning.
    const warned = await order([
      { sku: 'CARD-50', files: [{ upload_id: await uploadFile(t, key, await rgbPng(300, 300), 'ok.png') }] },
    ])
    const problem = await order([
      { sku: 'CARD-50', files: [{ upload_id: await uploadFile(t, key, await rgbPng(30, 30), 'tiny.png') }] },
    ])
    const unchecked = await order([{ sku: 'CARD-50', files: [] }])
    await settle()
    assert.equal((await verdict(warned))?.verdict, 'warning')
    assert.equal((await verdict(problem))?.verdict, 'problem')

    const listed = async (query: string) => {
      const res = await viewer.client.call('GET', `/orders?limit=100&${query}`)
      assert.equal(res.statusCode, 200, res.body)
      return res.json().data.map((o: { id: string }) => o.id) as string[]
    }
    // Each row says what the check found (null: nothing checked).
    const rows = (await viewer.client.call('GET', '/orders?limit=100')).json().data as {
      id: string
      print_check: string | null
    }[]
    assert.deepEqual(
      [warned, problem, unchecked].map((id) => rows.find((r) => r.id === id)?.print_check),
      ['warning', 'problem', null],
    )
    const mine = [warned, problem, unchecked]
    const ofMine = (ids: string[]) => ids.filter((id) => mine.includes(id))
    assert.deepEqual(ofMine(await listed('preflight=problem')), [problem])
    assert.deepEqual(ofMine(await listed('preflight=warning')), [warned])
    assert.deepEqual(ofMine(await listed('')), [unchecked, problem, warned])
    const csv = await viewer.client.call('GET', '/orders.csv?preflight=warning')
    assert.equal(csv.statusCode, 200)
    const csvIds = csv.body
      .trim()
      .split('\n')
      .slice(1)
      .map((line: string) => line.split(',')[0]!)
    assert.deepEqual(ofMine(csvIds), [warned], 'the CSV takes the same filter')
    const refused = await viewer.client.call('GET', '/orders?preflight=bad')
    assert.equal(refused.statusCode, 422, refused.body)

    const operator = await operatorOf(t)
    const board = async (query: string) => {
      const res = await operator.client.call(
        'GET',
        `/operator/production?organization_id=${orgId}&limit=100&${query}`,
      )
      assert.equal(res.statusCode, 200, res.body)
      const body = res.json()
      return { ids: ofMine(body.data.map((e: { order: { id: string } }) => e.order.id)), counts: body.counts }
    }
    const problems = await board('preflight=problem')
    assert.deepEqual(problems.ids, [problem])
    assert.ok(problems.counts.pending.count >= 1)
    assert.deepEqual((await board('preflight=warning')).ids, [warned])
    assert.deepEqual((await board('')).ids, [warned, problem, unchecked])
  })

  test('a rule that reads the print check waits for its results, production with it, then applies', async () => {
    const rule = await developer.client.call('POST', '/automation/rules', {
      name: 'Print problems',
      enabled: true,
      conditions: [{ field: 'item.preflight', operator: 'problems' }],
      actions: [{ type: 'hold' }, { type: 'tag', value: 'print check' }],
    })
    assert.equal(rule.statusCode, 201, rule.body)
    const ruleId = rule.json().data.rule.id
    const refused = await developer.client.call('POST', '/automation/rules', {
      name: 'Bad',
      enabled: true,
      conditions: [{ field: 'item.preflight', operator: 'problems', value: 2 }],
      actions: [{ type: 'hold' }],
    })
    assert.equal(refused.statusCode, 422, refused.body)
    assert.equal(refused.json().error.errors[0].field, 'conditions.0.value')
    const operator = await operatorOf(t)
    const dashboardOrder = async (id: string) => {
      const res = await viewer.client.call('GET', `/orders/${id}`)
      assert.equal(res.statusCode, 200, res.body)
      return res.json().data.order
    }
    const start = (productionOrderId: string) =>
      operator.client.call('POST', `/operator/production-orders/${productionOrderId}/status`, {
        status: 'in_progress',
        expected_status: 'pending',
      })
    try {
      const bad = await order([
        {
          sku: 'POSTER-A2',
          files: [{ upload_id: await uploadFile(t, key, await rgbPng(40, 40), 'bad.png') }],
        },
      ])
      const good = await order([
        {
          sku: 'CARD-50',
          files: [{ upload_id: await uploadFile(t, key, await rgbPng(300, 300), 'good.png') }],
        },
      ])
      const none = await order([{ sku: 'POSTER-A2', files: [] }])

      // As accepted: the rule waits on the orders with files, and so does production.
      const waiting = await dashboardOrder(bad)
      assert.deepEqual(
        [waiting.awaiting_preflight, waiting.held, waiting.tags],
        [['Print problems'], false, []],
      )
      assert.deepEqual((await dashboardOrder(good)).awaiting_preflight, ['Print problems'])
      assert.deepEqual((await dashboardOrder(none)).awaiting_preflight, [], 'no files: nothing to wait for')
      const early = await start(waiting.production_order.id)
      assert.equal(early.statusCode, 409, early.body)
      assert.equal(early.json().error.code, 'production_conflict')
      assert.match(
        early.json().error.message,
        /waits for its files' print check, which rule 'Print problems' reads/,
      )
      const board = await operator.client.call(
        'GET',
        `/operator/production?organization_id=${orgId}&limit=100`,
      )
      const entry = board.json().data.find((e: { order: { id: string } }) => e.order.id === bad)
      assert.deepEqual(entry.awaiting_preflight, ['Print problems'])
      const page = await operator.client.call(
        'GET',
        `/operator/production-orders/${entry.production_order.id}`,
      )
      assert.deepEqual(page.json().data.order.awaiting_preflight, ['Print problems'], 'as the page shows it')

      await settle()
      const held = await dashboardOrder(bad)
      assert.deepEqual(
        [held.awaiting_preflight, held.held, held.hold?.name, held.tags],
        [[], true, 'Print problems', ['print check']],
      )
      assert.deepEqual(
        held.automation.map((m: { name: string; actions: { words: string }[] }) => [
          m.name,
          m.actions.map((a) => a.words),
        ]),
        [['Print problems', ['held this order for review', 'tagged this order "print check"']]],
      )
      assert.ok(held.updated_at > waiting.updated_at, 'updated_at moved: pollers and open pages see it')
      const stillRefused = await start(held.production_order.id)
      assert.equal(stillRefused.statusCode, 409)
      assert.match(stillRefused.json().error.message, /held for review by rule 'Print problems'/)

      // A warning is not a problem: the rule does not match, the wait ends, production starts.
      const passed = await dashboardOrder(good)
      assert.deepEqual([passed.awaiting_preflight, passed.held, passed.tags], [[], false, []])
      const started = await start(passed.production_order.id)
      assert.equal(started.statusCode, 200, started.body)

      // The dry run reads the stored results: the order with a problem, not the one with a warning.
      const dry = await developer.client.call('POST', '/automation/dry-run', {
        name: 'Try',
        enabled: true,
        conditions: [{ field: 'item.preflight', operator: 'problems' }],
        actions: [{ type: 'hold' }],
      })
      assert.equal(dry.statusCode, 200, dry.body)
      const matched = dry.json().data.orders.map((o: { id: string }) => o.id)
      assert.ok(matched.includes(bad) && !matched.includes(good) && !matched.includes(none))
    } finally {
      await developer.client.call('DELETE', `/automation/rules/${ruleId}`)
    }
  })

  test('two runners on one database share the queue: every file measured once, every order checked', async () => {
    const orders: string[] = []
    const uploads: string[] = []
    for (let i = 0; i < 12; i++) {
      const uploadId = await uploadFile(t, key, await rgbPng(100 + i, 80), `f${i}.png`)
      uploads.push(uploadId)
      // Two orders share each file: the runners race for it.
      orders.push(await order([{ sku: 'POSTER-A2', files: [{ upload_id: uploadId }] }]))
      orders.push(await order([{ sku: 'POSTER-A2', files: [{ upload_id: uploadId }] }]))
    }
    while ((await t.db.transaction().execute((trx) => foldOrderChanges(trx, 100))) === 100) {}
    const second = createPreflightService({ db: t.db, clock: { now: () => new Date() }, storage: t.storage })
    try {
      const drain = async (runner: { runOnce(limit?: number): Promise<number> }) => {
        while ((await runner.runOnce(2)) > 0) {}
      }
      await Promise.all([drain(t.services.preflight), drain(second)])
    } finally {
      second.close()
    }
    const checked = await t.db
      .selectFrom('order_preflight')
      .select(['order_id', 'verdict'])
      .where('order_id', 'in', orders)
      .execute()
    assert.equal(checked.length, 24)
    assert.ok(checked.every((c) => c.verdict === 'problem'))
    const facts = await t.db
      .selectFrom('file_facts')
      .select(['upload_id', 'thumbnail_key'])
      .where('upload_id', 'in', uploads)
      .execute()
    assert.equal(facts.length, 12, 'one row per file')
    for (const f of facts)
      assert.ok(await t.storage.head(f.thumbnail_key!, 4), 'the kept thumbnail is stored')
    const left = await t.db
      .selectFrom('preflight_queue')
      .select('order_id')
      .where('order_id', 'in', orders)
      .execute()
    assert.deepEqual(left, [])
  })
})
