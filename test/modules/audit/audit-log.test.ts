import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import { auditSentence, SENTENCE_ACTIONS } from '../../../src/modules/audit/audit.sentences.ts'
import { AUDIT_ACTIONS } from '../../../src/modules/audit/audit.service.ts'
import { manualClock, useTestApp } from '../../helpers/app.ts'
import { memberOf, operatorOf } from '../../helpers/dashboard.ts'
import { assertError } from '../../helpers/errors.ts'

const clock = manualClock(new Date('2026-11-20T09:00:00.000Z'))
const t = useTestApp({ clock })

interface Entry {
  id: string
  actor: string
  action: string
  summary: string
  subject: string
  details: Record<string, unknown>
  created_at: string
}

/** A CSV body as rows of cells (RFC 4180 quoting). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let cell = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"'
        i++
      } else if (c === '"') quoted = false
      else cell += c
    } else if (c === '"') quoted = true
    else if (c === ',') {
      row.push(cell)
      cell = ''
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell)
      rows.push(row)
      row = []
      cell = ''
      i++
    } else cell += c
  }
  return rows
}

describe('audit log sentences', () => {
  test('every action the log records has its sentence', () => {
    assert.deepEqual([...SENTENCE_ACTIONS].sort(), [...AUDIT_ACTIONS].sort())
    for (const action of AUDIT_ACTIONS) {
      const sentence = auditSentence({ actor: 'ada@shop.test', action, subject: 'subject-1', details: {} })
      assert.ok(sentence.startsWith('ada@shop.test '), `${action}: ${sentence}`)
      assert.ok(!sentence.includes(action), `${action} reads as a sentence, not its name: ${sentence}`)
      assert.ok(!/undefined|\[object|\{"/.test(sentence), `${action}: ${sentence}`)
    }
  })

  test('an order change names the item and its quantities', () => {
    const sentence = auditSentence({
      actor: 'ada@shop.test',
      action: 'order.changed',
      subject: '019a0000-0000-7000-8000-000000000000',
      details: {
        external_order_id: 'SHOP-1',
        changed: ['items[0].quantity', 'customer.email'],
        before: { customer: { name: 'A', email: 'a@x.test' }, items: [{ quantity: 2 }] },
        after: { customer: { name: 'A', email: 'b@x.test' }, items: [{ quantity: 5 }] },
      },
    })
    assert.equal(
      sentence,
      'ada@shop.test changed order SHOP-1: quantity of item 1 2 \u2192 5; customer email a@x.test \u2192 b@x.test',
    )
  })
})

test('a production status reads as people say it, not as its code', () => {
  const sentence = auditSentence({
    actor: 'ops@platform.test',
    action: 'production.status_set',
    subject: '019a0000-0000-7000-8000-000000000000',
    details: { external_order_id: 'SHOP-1', from: 'pending', to: 'in_progress' },
  })
  assert.equal(
    sentence,
    'ops@platform.test set the production status of order SHOP-1 from pending to in production',
  )
})

describe('the audit log through the dashboard API', () => {
  let orgId: string
  let owner: Awaited<ReturnType<typeof memberOf>>
  let keyPrefix: string
  before(async () => {
    orgId = (await t.createOrganization('Audit Sentences Org')).id
    owner = await memberOf(t, orgId, 'owner')
    clock.advance(3_600_000)
    const key = await owner.client.call('POST', '/api-keys', {
      environment: 'live',
      scopes: ['orders:write'],
    })
    assert.equal(key.statusCode, 201, key.body)
    keyPrefix = key.json().data.api_key.key_prefix
    clock.advance(3_600_000)
    const rule = await owner.client.call('POST', '/automation/rules', {
      name: '=HYPERLINK("http://evil.test")',
      actions: [{ type: 'tag', value: 'big' }],
    })
    assert.equal(rule.statusCode, 201, rule.body)
  })

  test('each entry reads as a sentence', async () => {
    const res = await owner.client.call('GET', '/audit-log')
    assert.equal(res.statusCode, 200, res.body)
    const summaries = res.json().data.map((e: Entry) => e.summary)
    assert.deepEqual(summaries, [
      `${owner.email} created automation rule \u2018=HYPERLINK("http://evil.test")\u2019`,
      `${owner.email} created live key ${keyPrefix}\u2026 with orders:write`,
      `${owner.email} joined as owner`,
      `operator token invited ${owner.email} as owner`,
      'operator token created the organization \u2018Audit Sentences Org\u2019',
    ])
  })

  test('filters by action, actor and period', async () => {
    const byAction = await owner.client.call('GET', '/audit-log?action=api_key.created')
    assert.equal(byAction.statusCode, 200, byAction.body)
    assert.deepEqual(
      byAction.json().data.map((e: Entry) => e.subject),
      [keyPrefix],
    )
    const byOther = await owner.client.call(
      'GET',
      `/audit-log?actor=${encodeURIComponent('someone@else.test')}`,
    )
    assert.deepEqual(byOther.json().data, [])
    const byActor = await owner.client.call('GET', `/audit-log?actor=${encodeURIComponent(owner.email)}`)
    assert.equal(byActor.json().data.length, 3)
    // The key was created an hour after joining, the rule an hour after that.
    const from = new Date('2026-11-20T09:30:00.000Z').toISOString()
    const to = new Date('2026-11-20T10:30:00.000Z').toISOString()
    const period = await owner.client.call('GET', `/audit-log?from=${from}&to=${to}`)
    assert.equal(period.statusCode, 200, period.body)
    assert.deepEqual(
      period.json().data.map((e: Entry) => e.action),
      ['api_key.created'],
    )
  })

  test('bad filters are 422 naming the field', async () => {
    assertError(await owner.client.call('GET', '/audit-log?action=key.stolen'), 422, 'validation_failed')
    const badDate = await owner.client.call('GET', '/audit-log?from=yesterday')
    assertError(badDate, 422, 'validation_failed')
    assert.match(badDate.body, /from/)
    const backwards = await owner.client.call(
      'GET',
      '/audit-log?from=2026-11-21T00:00:00.000Z&to=2026-11-20T00:00:00.000Z',
    )
    assertError(backwards, 422, 'validation_failed')
    assert.equal(backwards.json().error.field, 'to')
    assertError(await owner.client.call('GET', '/audit-log.csv?action=nope'), 422, 'validation_failed')
  })

  test('the CSV holds the filtered log with sentences, formulas defused', async () => {
    const res = await owner.client.call('GET', '/audit-log.csv')
    assert.equal(res.statusCode, 200, res.body)
    assert.match(String(res.headers['content-type']), /^text\/csv/)
    assert.match(String(res.headers['content-disposition']), /attachment; filename="audit-log.csv"/)
    const rows = parseCsv(res.body)
    assert.deepEqual(rows[0], [
      'created_at',
      'actor',
      'action',
      'summary',
      'subject',
      'address',
      'details',
      'id',
    ])
    assert.deepEqual(
      rows.slice(1).map((r) => r[2]),
      [
        'automation_rule.created',
        'api_key.created',
        'member.joined',
        'member.invited',
        'organization.created',
      ],
    )
    assert.equal(rows[2]![3], `${owner.email} created live key ${keyPrefix}\u2026 with orders:write`)
    // The rule's name is its subject's sentence: a cell that began with = would be run by a spreadsheet.
    for (const row of rows) for (const cell of row) assert.ok(!/^[=+\-@]/.test(cell), cell)
    const filtered = parseCsv((await owner.client.call('GET', '/audit-log.csv?action=member.joined')).body)
    assert.equal(filtered.length, 2)
  })

  test('the CSV of a long log streams every entry', async () => {
    const org = (await t.createOrganization('Long Log Org')).id
    const member = await memberOf(t, org, 'owner')
    const many = 1_203
    await t.db
      .insertInto('audit_log')
      .values(
        Array.from({ length: many }, (_, n) => ({
          id: `019a0000-0000-7000-8000-${String(n).padStart(12, '0')}`,
          organization_id: org,
          actor_account_id: null,
          actor: 'importer@shop.test',
          by_operator: false,
          action: 'product.created',
          subject: `=SKU-${n}`,
          details: JSON.stringify({ name: `Product ${n}` }),
          address: null,
          created_at: new Date('2026-01-01T00:00:00.000Z'),
        })),
      )
      .execute()
    const res = await member.client.call('GET', '/audit-log.csv?action=product.created')
    const rows = parseCsv(res.body)
    assert.equal(rows.length, many + 1)
    assert.equal(rows[1]![4], "'=SKU-1202")
    assert.equal(rows[1]![3], 'importer@shop.test created product =SKU-1202 (Product 1202)')
  })

  test('the platform log reads in sentences, filters, and exports; a member cannot read it', async () => {
    const operator = await operatorOf(t)
    const created = await operator.client.call('POST', '/operator/organizations', {
      name: 'Made By Operator',
    })
    assert.equal(created.statusCode, 201, created.body)
    const res = await operator.client.call('GET', '/operator/audit-log?action=organization.created')
    assert.equal(res.statusCode, 200, res.body)
    const mine = res.json().data.find((e: Entry) => e.subject === 'Made By Operator')
    assert.equal(mine.summary, `${operator.email} created the organization \u2018Made By Operator\u2019`)
    assertError(await operator.client.call('GET', '/operator/audit-log?to=soon'), 422, 'validation_failed')
    const csv = parseCsv(
      (await operator.client.call('GET', '/operator/audit-log.csv?action=organization.created')).body,
    )
    assert.deepEqual(csv[0], [
      'created_at',
      'actor',
      'action',
      'summary',
      'subject',
      'organization_id',
      'address',
      'details',
      'id',
    ])
    assert.ok(csv.some((r) => r[4] === 'Made By Operator'))
    assertError(await owner.client.call('GET', '/operator/audit-log.csv'), 403, 'role_required')
  })
})
