import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { QueryId } from 'kysely'
import { sql } from 'kysely'
import type { Database } from '../../../src/db/database.ts'
import { findRuleSet } from '../../../src/modules/automation/automation.repo.ts'
import { createAutomationService } from '../../../src/modules/automation/automation.service.ts'
import {
  createTestApp,
  NEEDS_POSTGRESQL,
  orderBody,
  TEST_DATABASE_URL,
  type TestApp,
} from '../../helpers/app.ts'
import { memberOf } from '../../helpers/dashboard.ts'

/**
 * Two instances on one PostgreSQL, each with its own pool and its own memory
 * of the rules, while a member changes a rule on one of them again and again
 * and clients send orders to both. Each change tags orders with its number,
 * so every order says which version of the rules it was evaluated with.
 * Below, the two ways a read went wrong, each made to happen every time.
 */
describe('rules changed while orders arrive on two instances', {
  skip: !TEST_DATABASE_URL && NEEDS_POSTGRESQL,
}, () => {
  let a: TestApp
  let b: TestApp
  before(async () => {
    a = await createTestApp()
    b = await createTestApp({ db: await a.testDb.openAnother(), testDb: a.testDb })
  })
  after(async () => {
    await b.app.close()
    await a.close()
  })

  test('no order is evaluated with rules older than a change acknowledged before it was sent; no 503', async (t) => {
    const org = await a.tenant('Rapid Rules')
    const developer = await memberOf(a, org.orgId, 'developer')
    const tagged = (n: number) => ({ name: 'Version', actions: [{ type: 'tag', value: `v${n}` }] })
    const created = await developer.client.call('POST', '/automation/rules', tagged(0))
    assert.equal(created.statusCode, 201, created.body)
    const ruleId = created.json().data.rule.id as string

    // The number of the newest change answered 200.
    let acknowledged = 0
    let done = false
    const CHANGES = 20
    const changer = (async () => {
      for (let n = 1; n <= CHANGES; n++) {
        const res = await developer.client.call('PUT', `/automation/rules/${ruleId}`, {
          ...tagged(n),
          enabled: true,
          conditions: [],
        })
        assert.equal(res.statusCode, 200, res.body)
        acknowledged = n
        // Between 0 and 40 ms: faster than a person, so the caches are outdated all the time.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 40))
      }
    })().finally(() => {
      done = true
    })

    const sent: { instance: 'a' | 'b'; id: string; before: number }[] = []
    const statuses = new Map<number, number>()
    const client = async (name: 'a' | 'b', app: TestApp) => {
      while (!done) {
        const before = acknowledged
        const res = await app.api(org.liveKey, 'POST', '/v1/orders', orderBody())
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1)
        if (res.statusCode !== 201) continue
        sent.push({ instance: name, id: res.json().data.order.id, before })
      }
    }
    const clients = Array.from({ length: 16 }, (_, i) => (i % 2 === 0 ? client('a', a) : client('b', b)))
    await changer
    await Promise.all(clients)

    const rows = await a.db
      .selectFrom('orders')
      .select(['id', 'tags'])
      .where('organization_id', '=', org.orgId)
      .execute()
    const tags = new Map(rows.map((r) => [r.id, r.tags]))
    const stale = sent
      .map(({ instance, id, before }) => ({ instance, before, tag: tags.get(id)?.[0] ?? 'none' }))
      .filter(({ before, tag }) => !(Number(tag.slice(1)) >= before))
      .map(({ instance, before, tag }) => `on ${instance}: ${tag} after v${before} was acknowledged`)
    const summary = `${CHANGES} rule changes; answers ${JSON.stringify(Object.fromEntries(statuses))}`
    assert.deepEqual(Object.fromEntries(statuses), { 201: sent.length }, summary)
    assert.deepEqual(stale, [], summary)
    for (const instance of ['a', 'b'])
      assert.ok(sent.filter((o) => o.instance === instance).length >= 100, summary)
    t.diagnostic(summary)
  })
})

const operator = { accountId: null, label: 'operator token', address: null, operator: true }
const tagRule = (n: number) => ({
  name: 'Version',
  enabled: true,
  conditions: [],
  actions: [{ type: 'tag', value: `v${n}` }],
})
const tagOf = (rules: { actions: { type: string; value?: string }[] }[]) => rules[0]?.actions[0]?.value

describe('one read of the rules is one version', { skip: !TEST_DATABASE_URL && NEEDS_POSTGRESQL }, () => {
  let a: TestApp
  let other: Database
  before(async () => {
    a = await createTestApp()
    other = await a.testDb.openAnother()
  })
  after(() => a.close())

  test('read on another pool while the rules change: the rules are always those of the version read', async () => {
    const org = await a.createOrganization('Snapshots')
    const rules = createAutomationService({ db: a.db, clock: { now: () => new Date() } })
    const { id } = await rules.create(org.id, tagRule(0), operator)
    // Version 1 has v0; the change to v<n> makes version n + 1.
    const CHANGES = 150
    let changing = true
    const changer = (async () => {
      for (let n = 1; n <= CHANGES; n++) await rules.update(org.id, id, tagRule(n), operator)
    })().finally(() => {
      changing = false
    })
    const mixed: string[] = []
    let reads = 0
    const reader = async () => {
      while (changing) {
        const set = await findRuleSet(other, org.id)
        reads++
        if (tagOf(set.rules) !== `v${set.version - 1}`)
          mixed.push(`version ${set.version} with ${tagOf(set.rules)}`)
      }
    }
    await Promise.all([changer, reader(), reader(), reader(), reader()])
    assert.deepEqual(mixed, [], `${mixed.length} of ${reads} reads mixed two versions`)
    assert.ok(reads >= CHANGES, `${reads} reads`)
  })
})

/** A database whose reads of the rules, begun inside `hold`, answer only once released. */
function gated(db: Database) {
  let holding = false
  const held = new WeakSet<QueryId>()
  let release = () => {}
  let gate = Promise.resolve()
  const gatedDb = db.withPlugin({
    transformQuery({ node, queryId }) {
      if (holding) held.add(queryId)
      return node
    },
    async transformResult({ result, queryId }) {
      if (held.has(queryId)) await gate
      return result
    },
  })
  return {
    db: gatedDb,
    /** Starts `read` with its queries held: it resolves only after `release()`. */
    hold<T>(read: () => Promise<T>) {
      gate = new Promise<void>((resolve) => {
        release = resolve
      })
      holding = true
      try {
        return { read: read(), release: () => release() }
      } finally {
        holding = false
      }
    },
  }
}

describe('the rules in memory never go back in version', () => {
  let a: TestApp
  before(async () => {
    a = await createTestApp()
  })
  after(() => a.close())

  async function setUp(name: string) {
    const org = await a.createOrganization(name)
    const gate = gated(a.db)
    const rules = createAutomationService({ db: gate.db, clock: { now: () => new Date() } })
    const { id } = await rules.create(org.id, tagRule(0), operator)
    /** A change as another instance writes it: the rule and the version, not this memory. */
    const changeElsewhere = async (n: number) => {
      await sql`update automation_rules set actions = ${JSON.stringify(tagRule(n).actions)}::jsonb
        where id = ${id}::uuid`.execute(a.db)
      await sql`update automation_versions set version = version + 1 where organization_id = ${org.id}::uuid`.execute(
        a.db,
      )
    }
    return { org, gate, rules, id, changeElsewhere }
  }

  test('a read begun before a forget does not put what was forgotten back', async () => {
    const { org, gate, rules, changeElsewhere } = await setUp('Slow read, then forget')
    assert.equal((await rules.ruleSet(org.id)).version, 1)
    rules.forget(org.id)
    const slow = gate.hold(() => rules.ruleSet(org.id))
    await changeElsewhere(1)
    // An order's statement found version 2: this instance forgets again.
    rules.forget(org.id)
    slow.release()
    assert.equal((await slow.read).version, 1)
    const now = await rules.ruleSet(org.id)
    assert.equal(now.version, 2)
    assert.deepEqual(now.rules[0]?.rule.actions, [{ type: 'tag', value: 'v1' }])
  })

  test('a slow read of an older version does not replace a newer one', async () => {
    const { org, gate, rules, id } = await setUp('Slow read, change here')
    const slow = gate.hold(() => rules.ruleSet(org.id))
    // A change on this instance, answered, then an order reads the new rules.
    await rules.update(org.id, id, tagRule(1), operator)
    assert.equal((await rules.ruleSet(org.id)).version, 2)
    slow.release()
    assert.equal((await slow.read).version, 1)
    assert.equal((await rules.ruleSet(org.id)).version, 2)
  })

  test('a retry reads from the database, whatever memory holds', async () => {
    const { org, rules, changeElsewhere } = await setUp('Retry')
    assert.equal((await rules.ruleSet(org.id)).version, 1)
    await changeElsewhere(1)
    assert.equal((await rules.ruleSet(org.id)).version, 1)
    assert.equal((await rules.ruleSet(org.id, { fresh: true })).version, 2)
    assert.equal((await rules.ruleSet(org.id)).version, 2)
  })
})
