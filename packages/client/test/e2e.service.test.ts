import assert from 'node:assert/strict'
import { createReadStream, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { seededDataDir } from '../../../test/helpers/databases.ts'
import { type Receiver, startReceiver } from '../../../test/helpers/https-receiver.ts'
import {
  callService,
  freePort,
  type ServiceProcess,
  startServiceProcess,
} from '../../../test/helpers/service-process.ts'
import { OrderIntakeClient, OrderIntakeError, verifyWebhook, type WebhookEvent } from '../src/index.ts'

/**
 * The client as an integrator uses it, against the service's real entry point
 * (src/main.ts) in a child process: upload two files (bytes and a Node stream),
 * create an order, follow it to completed with the changes feed, and verify
 * the webhooks it caused.
 */
const OPERATOR = 'op_client_e2e_operator_token_0123456789abcdef'
describe('the client against a running service', () => {
  let dir: string
  let service: ServiceProcess
  let receiver: Receiver
  let client: OrderIntakeClient
  let secret: string
  const operator = (method: string, path: string, body?: unknown) =>
    callService(service.port, OPERATOR, method, path, body)

  before(async () => {
    dir = await seededDataDir('client-e2e-')
    receiver = await startReceiver()
    writeFileSync(join(dir, 'ca.pem'), receiver.ca)
    const port = await freePort()
    service = await startServiceProcess({
      PORT: String(port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      DATA_DIR: dir,
      DATABASE_URL: '',
      OPERATOR_TOKEN: OPERATOR,
      WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8',
      NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem'),
    })
    const org = await operator('POST', '/admin/v1/organizations', { name: 'Client E2E' })
    const key = await operator('POST', `/admin/v1/organizations/${org.body.data.organization.id}/api-keys`, {
      environment: 'live',
      scopes: ['orders:read', 'orders:write', 'files:write', 'webhooks:manage'],
    })
    assert.equal(key.status, 201, JSON.stringify(key.body))
    client = new OrderIntakeClient({ apiKey: key.body.data.key, baseUrl: `http://127.0.0.1:${port}` })
    const endpoint = await client.request<{ data: { secret: string } }>('POST', '/v1/webhook-endpoints', {
      body: { url: `https://127.0.0.1:${receiver.port}/hook` },
    })
    assert.equal(endpoint.status, 201)
    secret = endpoint.body.data.secret
  })
  after(async () => {
    service?.child.kill('SIGTERM')
    await service?.exited
    await receiver?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  test('ping, upload, create (201 then 200), poll to completed, verified webhooks', async () => {
    assert.equal((await client.ping()).environment, 'live')

    const pngPath = new URL('../../../examples/files/artwork.png', import.meta.url)
    const pdfPath = new URL('../../../examples/files/proof.pdf', import.meta.url)
    const { readFile } = await import('node:fs/promises')
    const png = await client.uploads.upload('artwork.png', await readFile(pngPath), {
      contentType: 'image/png',
    })
    const pdf = await client.uploads.upload('my proof?.pdf', createReadStream(pdfPath), {
      size: statSync(pdfPath).size,
    })
    assert.equal(pdf.filename, 'my_proof_.pdf')

    const body = {
      external_order_id: 'E2E-1',
      customer: { name: 'Ada Lovelace' },
      items: [
        {
          sku: 'NO-SUCH-SKU',
          name: 'Poster',
          quantity: 2,
          files: [
            { upload_id: png.upload_id, role: 'artwork' },
            { upload_id: pdf.upload_id, role: 'proof' },
          ],
        },
      ],
    }
    const created = await client.orders.create(body)
    assert.deepEqual([created.status, created.created], [201, true])
    assert.deepEqual(
      created.warnings.map((w) => w.code),
      ['item_product_unmatched'],
    )
    assert.deepEqual(
      created.order.items[0]!.files.map((f) => [f.name, f.role]),
      [
        ['artwork.png', 'artwork'],
        ['my_proof_.pdf', 'proof'],
      ],
    )
    const repeat = await client.orders.create(body)
    assert.deepEqual(
      [repeat.status, repeat.created, repeat.warnings, repeat.order.id],
      [200, false, [], created.order.id],
    )

    const conflict = await client.orders
      .create({ ...body, customer: { name: 'Someone else' } })
      .catch((e) => e)
    assert.ok(conflict instanceof OrderIntakeError)
    assert.equal(conflict.code, 'order_already_exists_with_different_content')
    assert.equal(conflict.status, 409)
    assert.match(conflict.docUrl ?? '', /\/developers\/errors\/order_already_exists_with_different_content$/)
    assert.ok(conflict.requestId)

    // The first run of the feed sees the new order; production then moves it on.
    let feed = client.orders.changes({ overlapMs: 5000 })
    const firstRun = []
    for await (const o of feed) firstRun.push(o)
    assert.deepEqual(
      firstRun.map((o) => [o.id, o.status]),
      [[created.order.id, 'pending']],
    )
    const admin = await operator('GET', `/admin/v1/orders/${created.order.id}`)
    const productionId = admin.body.data.order.production_order.id
    for (const status of ['in_progress', 'completed']) {
      const moved = await operator('POST', `/admin/v1/production-orders/${productionId}/status`, { status })
      assert.equal(moved.status, 200, JSON.stringify(moved.body))
    }
    let last = firstRun[0]!
    for (let i = 0; i < 50 && last.status !== 'completed'; i++) {
      feed = client.orders.changes({ checkpoint: feed.checkpoint, overlapMs: 5000 })
      for await (const o of feed) last = o
      if (last.status !== 'completed') await new Promise((r) => setTimeout(r, 100))
    }
    assert.equal(last.status, 'completed')
    const rerun = []
    for await (const o of client.orders.changes({ checkpoint: feed.checkpoint, overlapMs: 5000 }))
      rerun.push(o)
    assert.deepEqual(rerun, [], 'the overlap hands nothing out twice')

    await receiver.waitFor(3)
    const events: WebhookEvent[] = []
    for (const req of receiver.received) {
      events.push(await verifyWebhook(req.body, req.headers['x-service-signature'] as string, secret))
    }
    assert.deepEqual(events.map((e) => e.type).sort(), [
      'order.production_completed',
      'order.production_started',
      'order.received',
    ])
    for (const e of events) assert.equal(e.type !== 'ping' && e.data.order_id, created.order.id)
    const completed = events.find((e) => e.type === 'order.production_completed')
    assert.equal(
      completed?.type === 'order.production_completed' && completed.data.production_status,
      'completed',
    )
    await assert.rejects(
      verifyWebhook(
        receiver.received[0]!.body,
        receiver.received[0]!.headers['x-service-signature'] as string,
        'whsec_wrong',
      ),
    )
  })
})
