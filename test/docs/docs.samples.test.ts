import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { pathToFileURL } from 'node:url'
import { sql } from 'kysely'
import { SIGNATURE_VECTORS } from '../../packages/client/test/vectors.ts'
import { createTestApp, orderBody, type TestApp, useTestApp } from '../helpers/app.ts'
import { memberOf } from '../helpers/dashboard.ts'
import { loopbackResolver, type Receiver, startReceiver } from '../helpers/https-receiver.ts'
import { taggedBlocks } from '../helpers/markdown.ts'
import { createOrder } from '../helpers/order-files.ts'

/** The samples of the guides, run as a reader copies them; each part with its own app. */
describe('docs/automation.md: the example rules', () => {
  /**
   * The examples of docs/automation.md as a reader would copy them: each is
   * accepted by the dashboard API as written, and the closing example does
   * what the page says (held by the first rule, tagged, rush).
   */
  const t = useTestApp()
  const examples = [...readFileSync('docs/automation.md', 'utf8').matchAll(/```json\n([\s\S]*?)```/g)].map(
    (m) => JSON.parse(m[1]!) as { name: string },
  )

  test('every example rule is accepted as written, and the large mugs and VIP rules act as described', async () => {
    assert.deepEqual(
      examples.map((e) => e.name),
      ['Large mugs', 'Posters to the partner', 'VIP rush', 'Print problems', 'Long engravings'],
    )
    const org = await t.tenant('Automation Docs')
    const developer = await memberOf(t, org.orgId, 'developer')
    for (const example of examples) {
      const res = await developer.client.call('POST', '/automation/rules', example)
      assert.equal(res.statusCode, 201, `${example.name}: ${res.body}`)
    }
    const vip = { name: 'Anna', email: 'anna@vip.example.com' }
    const many = await createOrder(
      t,
      org.liveKey,
      orderBody({ customer: vip, items: [{ sku: 'MUG-WHITE', name: 'Mug', quantity: 60 }] }),
    )
    const few = await createOrder(
      t,
      org.liveKey,
      orderBody({ customer: vip, items: [{ sku: 'MUG-WHITE', name: 'Mug', quantity: 2 }] }),
    )
    const read = async (id: string) =>
      (
        await sql<{ tags: string[]; priority: string; hold: { name: string } | null }>`
        select o.tags, p.priority, p.hold from orders o join production_orders p on p.order_id = o.id
        where o.id = ${id}::uuid`.execute(t.db)
      ).rows[0]!
    const held = await read(many.id)
    assert.deepEqual([held.hold?.name, held.tags, held.priority], ['Large mugs', ['large'], 'rush'])
    const rushed = await read(few.id)
    assert.deepEqual([rushed.hold, rushed.tags, rushed.priority], [null, [], 'rush'])
  })
})

describe('docs/webhooks.md: signature samples against a real delivery', () => {
  /**
   * The signature checks published in docs/webhooks.md, run as a reader would
   * copy them, against a real delivery of the service: each accepts it, and
   * refuses a changed body, the secret without its prefix, a stale t and a
   * missing header.
   */
  const DOC = readFileSync('docs/webhooks.md', 'utf8')
  const sample = (tag: string) => {
    const blocks = taggedBlocks(DOC, tag)
    assert.equal(blocks.length, 1, `one block marked ${tag}`)
    return blocks[0]!
  }
  const hasPython = spawnSync('python3', ['--version']).status === 0

  interface Delivery {
    body: Buffer
    header: string
    /** The Standard Webhooks headers of the same request. */
    standard: Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string>
    secret: string
    t: number
  }

  let app: TestApp
  let receiver: Receiver
  let dir: string
  let delivery: Delivery
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-doc-samples-'))
    receiver = await startReceiver()
    app = await createTestApp({ resolver: loopbackResolver, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })
    const { liveKey } = await app.tenant()
    await app.startDispatcher({ ca: receiver.ca })
    const created = await app.api(liveKey, 'POST', '/v1/webhook-endpoints', { url: receiver.url('/hook') })
    assert.equal(created.statusCode, 201, created.body)
    // Characters outside ASCII: the samples must sign bytes, not characters.
    const order = await app.api(liveKey, 'POST', '/v1/orders', orderBody({ external_order_id: 'Grüße-№1' }))
    assert.equal(order.statusCode, 201, order.body)
    await receiver.waitFor(1)
    const req = receiver.received[0]!
    const header = req.headers['x-service-signature'] as string
    delivery = {
      body: req.body,
      header,
      standard: {
        'webhook-id': String(req.headers['webhook-id']),
        'webhook-timestamp': String(req.headers['webhook-timestamp']),
        'webhook-signature': String(req.headers['webhook-signature']),
      },
      secret: created.json().data.secret,
      t: Number(/t=(\d+)/.exec(header)![1]),
    }
    assert.ok(req.body.includes(Buffer.from('Grüße-№1')), 'the body carries the non-ASCII id')
  })
  after(async () => {
    await app.close()
    await receiver.close()
    rmSync(dir, { recursive: true, force: true })
  })

  /** Each case: body, header, secret, receiver clock; and whether it must verify. */
  const cases = (d: Delivery) => {
    const tampered = Buffer.from(d.body)
    tampered[tampered.length - 2]! ^= 1
    return [
      {
        name: 'the delivery as received',
        body: d.body,
        header: d.header,
        secret: d.secret,
        now: d.t + 5,
        ok: true,
      },
      { name: 'one changed byte', body: tampered, header: d.header, secret: d.secret, now: d.t, ok: false },
      {
        name: 'the secret without whsec_',
        body: d.body,
        header: d.header,
        secret: d.secret.slice('whsec_'.length),
        now: d.t,
        ok: false,
      },
      { name: 't 301 s old', body: d.body, header: d.header, secret: d.secret, now: d.t + 301, ok: false },
      { name: 'no header', body: d.body, header: '', secret: d.secret, now: d.t, ok: false },
    ]
  }

  /** The real delivery's cases, then every published test vector. */
  const allCases = () => [
    ...cases(delivery),
    ...SIGNATURE_VECTORS.vectors.map((v) => ({ ...v, body: Buffer.from(v.body), ok: v.expected.valid })),
  ]

  /**
   * Runs a sample once over every case: `harness` is the sample followed by a
   * loop that reads the cases file (JSON lines of body in base64, header,
   * secret, now) and prints the sample's answer for each, one per line.
   */
  function runAll(command: string, file: string) {
    const all = allCases()
    const casesFile = join(dir, 'cases.jsonl')
    writeFileSync(
      casesFile,
      all
        .map((c) =>
          JSON.stringify({
            body: c.body.toString('base64'),
            header: c.header,
            secret: c.secret,
            now: c.now,
          }),
        )
        .join('\n'),
    )
    const run = spawnSync(command, [file, casesFile], { encoding: 'utf8' })
    assert.equal(run.status, 0, run.stderr)
    const answers = run.stdout.trim().split('\n')
    assert.deepEqual(
      answers.map((answer, i) => [all[i]?.name, answer.trim().toLowerCase()]),
      all.map((c) => [c.name, String(c.ok)]),
    )
  }

  test('the Node sample, and the example receiver carries the same function', () => {
    const code = sample('sample:node')
    const file = join(dir, 'verify.mjs')
    writeFileSync(
      file,
      `${code}\nimport { readFileSync } from 'node:fs'\n` +
        "for (const line of readFileSync(process.argv[2], 'utf8').split('\\n')) {\n" +
        '  const { body, header, secret, now } = JSON.parse(line)\n' +
        "  console.log(verifySignature(Buffer.from(body, 'base64'), header, secret, now))\n" +
        '}\n',
    )
    runAll(process.execPath, file)
    const receiver = readFileSync('examples/webhook-receiver.mjs', 'utf8')
    assert.ok(receiver.includes(code.slice(code.indexOf('const TOLERANCE_S'))), 'the receiver has the sample')
  })

  test('the Python sample', { skip: hasPython ? false : 'needs python3' }, () => {
    const file = join(dir, 'verify.py')
    writeFileSync(
      file,
      `${sample('sample:python')}\nimport base64, json, sys\n` +
        'for line in open(sys.argv[1]):\n' +
        '    c = json.loads(line)\n' +
        '    print(verify_signature(base64.b64decode(c["body"]), c["header"], c["secret"], c["now"]))\n',
    )
    runAll('python3', file)
  })

  test('the client sample, with the built package', async () => {
    const code = sample('sample:client').replace(
      "'@order-intake/client'",
      `'${resolve('packages/client/dist/index.js')}'`,
    )
    const file = join(dir, 'client-sample.mjs')
    writeFileSync(file, `${code}\nexport { receive }\n`)
    const { receive } = await import(file)
    const queue: { id: string }[] = []
    const headers = { 'x-service-signature': delivery.header }
    assert.equal(await receive(delivery.body, headers, delivery.secret, queue), 200)
    assert.equal(queue[0]!.id, JSON.parse(delivery.body.toString('utf8')).id)
    assert.equal(await receive(delivery.body, headers, `${delivery.secret}x`, queue), 401)
    assert.equal(await receive(delivery.body, {}, delivery.secret, queue), 401)
    assert.equal(queue.length, 1)
    // The same request with only its Standard Webhooks headers.
    assert.equal(await receive(delivery.body, delivery.standard, delivery.secret, queue), 200)
    assert.equal(queue[1]!.id, queue[0]!.id)
    assert.equal(await receive(delivery.body, delivery.standard, `${delivery.secret}x`, queue), 401)
  })

  test('the standardwebhooks sample', async () => {
    const library = pathToFileURL(createRequire(import.meta.url).resolve('standardwebhooks')).href
    const code = sample('sample:standardwebhooks').replace("'standardwebhooks'", `'${library}'`)
    const file = join(dir, 'standard-sample.mjs')
    writeFileSync(file, `${code}\nexport { verifyStandard }\n`)
    const { verifyStandard } = await import(file)
    const raw = delivery.body.toString('utf8')
    assert.deepEqual(verifyStandard(raw, delivery.standard, delivery.secret), JSON.parse(raw))
    const tampered = raw.replace('Grüße', 'Grusse')
    assert.throws(() => verifyStandard(tampered, delivery.standard, delivery.secret), /signature/i)
    assert.throws(() =>
      verifyStandard(raw, delivery.standard, 'whsec_TWZLUTlyOEdLWXFyVHdqVVBEOElMUFpJbzJMYUxhU3c'),
    )
    assert.throws(() => verifyStandard(raw, {}, delivery.secret))
  })

  test('the openssl one-liner prints the v1 of the header', () => {
    writeFileSync(join(dir, 'body.json'), delivery.body)
    const run = spawnSync('bash', ['-c', sample('sample:openssl')], {
      cwd: dir,
      env: { ...process.env, SIG: delivery.header, WEBHOOK_SECRET: delivery.secret },
      encoding: 'utf8',
    })
    assert.equal(run.status, 0, run.stderr)
    assert.equal(run.stdout.trim(), /v1=([0-9a-f]{64})/.exec(delivery.header)![1])
  })
})
