import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { runAdmin } from '../../scripts/admin/cli.ts'
import { COMMANDS } from '../../scripts/admin/commands.ts'
import { orderBody } from '../helpers/app.ts'
import { seededDataDir } from '../helpers/databases.ts'
import {
  callService,
  freePort,
  type ServiceProcess,
  startServiceProcess,
} from '../helpers/service-process.ts'

/**
 * The admin CLI against the service as a process: what a person or a script
 * sees, and the exit codes. Most command lines run the CLI's code in this
 * process; the process itself (npm run admin runs scripts/admin.ts) is run for
 * each kind of exit code, for help, and for stdin.
 */
let dataDir: string
let service: ServiceProcess
let token: string
before(async () => {
  dataDir = await seededDataDir('svc-cli-')
  // Endpoints on 127.0.0.1 (nothing listens there: the deliveries fail, as a real outage would).
  service = await startServiceProcess({
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8',
  })
  token = readFileSync(join(dataDir, 'operator-token'), 'utf8').trim()
})
after(() => {
  service.child.kill('SIGKILL')
  rmSync(dataDir, { recursive: true, force: true })
})

/** The environment a command runs in: the service's DATA_DIR and port, nothing else configured. */
function cliEnv(env: Record<string, string>): Record<string, string | undefined> {
  return {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(service.port),
    PUBLIC_BASE_URL: '',
    OPERATOR_TOKEN: '',
    ...env,
  }
}

/**
 * A command line run by the CLI's code (scripts/admin/cli.ts) in this process:
 * its exit code and what it printed. `npm run admin` is that code in a process
 * of its own (scripts/admin.ts), which adminProcess runs.
 */
async function admin(args: string[], env: Record<string, string> = {}) {
  let stdout = ''
  let stderr = ''
  const status = await runAdmin(args, {
    env: cliEnv(env),
    out: (text) => {
      stdout += `${text}\n`
    },
    err: (text) => {
      stderr += `${text}\n`
    },
  })
  return { status, stdout, stderr }
}

/** A command line as `npm run admin` runs it: a process, its exit status and output. */
function adminProcess(args: string[], env: Record<string, string> = {}, input?: string) {
  const res = spawnSync(process.execPath, ['scripts/admin.ts', ...args], {
    env: cliEnv(env),
    encoding: 'utf8',
    ...(input === undefined ? {} : { input }),
  })
  return { status: res.status, stdout: res.stdout, stderr: res.stderr }
}

/** The --json answer of a command that must succeed. */
// biome-ignore lint/suspicious/noExplicitAny: answers read field by field
async function json(args: string[]): Promise<any> {
  const res = await admin([...args, '--json'])
  assert.equal(res.status, 0, `${args.join(' ')}: ${res.stderr}`)
  return JSON.parse(res.stdout)
}

/** Accepts an invitation as its browser would: the answer's status, the account's kind, the cookies. */
async function acceptInvitation(token: string) {
  const base = `http://127.0.0.1:${service.port}`
  const session = await fetch(`${base}/dashboard/api/session`)
  const csrf = (await session.json()).data.csrf_token as string
  const cookies = (res: Response) =>
    res.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ')
  const accepted = await fetch(`${base}/dashboard/api/invitations/accept`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      origin: base,
      cookie: cookies(session),
      'x-csrf-token': csrf,
    },
    body: JSON.stringify({ token, password: 'correct horse battery staple' }),
  })
  const body = await accepted.json()
  return {
    status: accepted.status,
    kind: body.data?.kind,
    cookie: `${cookies(session)}; ${cookies(accepted)}`,
  }
}

/** The columns of a table's header line start where each column's values start. */
function assertAligned(output: string, headers: string[]): string[] {
  const lines = output.trimEnd().split('\n')
  const header = lines[0]!
  const starts = headers.map((h) => header.indexOf(h))
  for (const s of starts) assert.ok(s >= 0, `header ${header}`)
  for (const line of lines.slice(1)) {
    for (const s of starts.slice(1)) {
      assert.equal(line[s - 1], ' ', `column at ${s} in "${line}"`)
      assert.notEqual(line[s], ' ', `column at ${s} in "${line}"`)
    }
  }
  return lines
}

describe('admin CLI: help and usage', () => {
  test('--help lists every command; each command has its own --help with an example (exit 0)', async () => {
    const top = adminProcess(['--help'])
    assert.equal(top.status, 0)
    for (const c of COMMANDS) assert.match(top.stdout, new RegExp(`^  ${c.name} `, 'm'), c.name)
    assert.match(top.stdout, /Exit codes:\n {2}0 {2}done\n {2}1 .*\n {2}2 .*\n {2}3 .*\n {2}4 /)
    for (const c of COMMANDS) {
      const help = await admin([...c.name.split(' '), '--help'])
      assert.equal(help.status, 0, c.name)
      assert.ok(help.stdout.includes(`Usage: npm run admin -- ${c.name}`), help.stdout)
      assert.ok(help.stdout.includes(`Example: npm run admin -- ${c.example}`), help.stdout)
      for (const option of Object.keys(c.options ?? {}))
        assert.ok(help.stdout.includes(`--${option}`), option)
    }
  })

  test('usage errors exit 2 and say what is wrong', async () => {
    const unknown = adminProcess(['keys', 'lst'])
    assert.equal(unknown.status, 2)
    assert.match(unknown.stderr, /Unknown command: keys lst\. keys takes one of: list, create, revoke/)
    const missing = await admin(['products', 'create', 'ORG'])
    assert.equal(missing.status, 2)
    assert.match(missing.stderr, /Usage: npm run admin -- products create ORG_ID SKU NAME/)
    const option = await admin(['organizations', 'list', '--env', 'live'])
    assert.equal(option.status, 2)
    assert.match(option.stderr, /organizations list takes no --env/)
    const flag = await admin(['production', 'partner', 'x', 'maybe'])
    assert.equal(flag.status, 2)
    assert.match(flag.stderr, /on or off/)
    const none = await admin([])
    assert.equal(none.status, 2)
    assert.match(none.stdout, /^Usage: npm run admin -- <command>/)
  })

  test('a service out of reach exits 3 and names --url and PORT', async () => {
    const port = await freePort()
    const byPort = adminProcess(['organizations', 'list'], { PORT: String(port) })
    assert.equal(byPort.status, 3)
    assert.match(
      byPort.stderr,
      new RegExp(`Cannot reach the service at http://localhost:${port} \\(from PORT=${port}\\)`),
    )
    assert.match(byPort.stderr, /--url URL/)
    assert.match(byPort.stderr, /PORT/)
    const byUrl = await admin(['organizations', 'list', '--url', `http://127.0.0.1:${port}`])
    assert.equal(byUrl.status, 3)
    assert.match(byUrl.stderr, /\(from --url\)/)
  })

  test('no operator token exits 4', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'svc-cli-empty-'))
    try {
      const res = adminProcess(['organizations', 'list'], { DATA_DIR: empty })
      assert.equal(res.status, 4)
      assert.match(res.stderr, /No OPERATOR_TOKEN set and no token file/)
    } finally {
      rmSync(empty, { recursive: true, force: true })
    }
  })
})

describe('admin CLI: the operator API', () => {
  test('bootstrap, then a second bootstrap warns that organizations exist', async () => {
    const first = await admin(['bootstrap', '--name', 'First Org'])
    assert.equal(first.status, 0, first.stderr)
    assert.match(first.stdout, /Test key: +svc_test_\w+/)
    const second = await admin(['bootstrap', '--name', 'Second Org'])
    assert.equal(second.status, 0, second.stderr)
    assert.match(second.stderr, /Warning: 1 organization\(s\) already exist \(First Org\)/)
    const list = await admin(['organizations', 'list'])
    const lines = assertAligned(list.stdout, ['ID', 'NAME', 'CREATED'])
    assert.equal(lines.length, 3)
    assert.match(lines[1]!, /First Org +just now$/)
  })

  test('organizations, keys and products: human tables and --json', async () => {
    const org = await json(['organizations', 'create', 'Keys Org'])
    assert.equal(org.name, 'Keys Org')
    const key = await json([
      'keys',
      'create',
      org.id,
      '--env',
      'live',
      '--scopes',
      'orders:read',
      '--name',
      'Sync',
    ])
    assert.match(key.key, /^svc_live_/)
    const ping = await fetch(`http://127.0.0.1:${service.port}/v1/ping`, {
      headers: { authorization: `Bearer ${key.key}` },
    })
    assert.equal(ping.status, 200)
    const created = await admin(['keys', 'create', org.id, '--env', 'test'])
    assert.equal(created.status, 0, created.stderr)
    assert.match(created.stdout, /^Key: svc_test_\w+$/m)
    const keys = await admin(['keys', 'list', org.id])
    assertAligned(keys.stdout, ['ID', 'ENV', 'PREFIX', 'NAME', 'SCOPES', 'STATE', 'CREATED'])
    assert.match(keys.stdout, /live +svc_live_\w+ +Sync +orders:read +active +just now/)
    const revoked = await admin(['keys', 'revoke', key.api_key.id])
    assert.equal(revoked.status, 0)
    assert.match(revoked.stdout, new RegExp(`Revoked key ${key.api_key.id}`))
    assert.match((await admin(['keys', 'list', org.id])).stdout, /revoked just now/)

    assert.equal((await admin(['products', 'create', org.id, 'MUG-01', 'Photo mug'])).status, 0)
    const duplicate = await admin(['products', 'create', org.id, 'MUG-01', 'Again'])
    assert.equal(duplicate.status, 1)
    assert.match(duplicate.stderr, /^Error: 409 product_already_exists/)
    const products = await admin(['products', 'list', org.id])
    assertAligned(products.stdout, ['ID', 'SKU', 'NAME', 'CREATED'])
    assert.match(products.stdout, /MUG-01 +Photo mug/)

    // Its print specification: set in words, removed; a bad option is a usage error (exit 2).
    const mug = (await json(['products', 'list', org.id]))[0]
    const spec = await admin([
      'products',
      'print-spec',
      mug.id,
      '--width-mm',
      '200',
      '--height-mm',
      '95.5',
      '--dpi',
      '300',
      '--colour',
      'cmyk',
      '--no-transparency',
    ])
    assert.equal(spec.status, 0, spec.stderr)
    assert.equal(
      spec.stdout.trim(),
      'Print specification of MUG-01:\n  every file: 200 \u00d7 95.5 mm, 300 dpi, CMYK, no transparency',
    )
    const bad = await admin([
      'products',
      'print-spec',
      mug.id,
      '--width-mm',
      '200',
      '--height-mm',
      '95',
      '--colour',
      'grey',
    ])
    assert.equal(bad.status, 2)
    assert.match(bad.stderr, /--colour takes any, rgb or cmyk/)
    const removed = await admin(['products', 'print-spec', mug.id, '--remove'])
    assert.equal(removed.stdout.trim(), 'Removed the print specification of MUG-01.')
  })

  test('orders and production: an order moved item by item, partner flag, cancel; stats', async () => {
    const org = await json(['organizations', 'create', 'Production Org'])
    const key = (await json(['keys', 'create', org.id, '--env', 'live'])).key
    const body = orderBody()
    const order = (await callService(service.port, key, 'POST', '/v1/orders', body)).body.data.order
    const list = await admin(['orders', 'list', org.id])
    assertAligned(list.stdout, ['ID', 'NUMBER', 'EXTERNAL ID', 'ENV', 'SOURCE', 'STATUS', 'PRODUCTION'])
    assert.match(list.stdout, new RegExp(`${body.external_order_id} +live +api +pending +pending`))

    const shown = await admin(['orders', 'show', order.id])
    assert.equal(shown.status, 0)
    assert.match(shown.stdout, /^Source: +api$/m)
    const view = await json(['orders', 'show', order.id])
    const po = view.production_order.id
    const [job0, job1] = view.items.map((i: { production_job: { id: string } }) => i.production_job.id)

    assert.match((await admin(['production', 'status', po, 'in_progress'])).stdout, /is in_progress/)
    assert.match(
      (await admin(['production', 'complete-job', job0])).stdout,
      new RegExp(`Job ${job0} .* is completed`),
    )
    assert.equal((await json(['production', 'partner', po, 'on'])).produced_by_partner, true)
    assert.equal((await json(['production', 'partner', po, 'off'])).produced_by_partner, false)
    assert.equal((await json(['production', 'complete-job', job1])).status, 'completed')
    assert.equal((await json(['production', 'status', po, 'completed'])).status, 'completed')
    const after = await json(['orders', 'show', order.id])
    assert.equal(after.status, 'completed')

    const bad = await admin(['production', 'status', po, 'shipped', '--json'])
    assert.equal(bad.status, 1)
    assert.equal(JSON.parse(bad.stdout).error.code, 'validation_failed')

    const second = (await callService(service.port, key, 'POST', '/v1/orders', orderBody())).body.data.order
    assert.match((await admin(['production', 'cancel', second.id])).stdout, /is cancelled/)

    const stats = await json(['stats', org.id])
    assert.equal(stats.orders_total, 2)
    assert.equal(stats.orders_by_status.completed, 1)
    assert.equal(stats.orders_by_status.cancelled, 1)
    const human = await admin(['stats', org.id])
    assert.match(human.stdout, /^Live orders: +2$/m)
    assertAligned(human.stdout.split('\n\n')[1]!, ['STATUS', 'ORDERS'])

    // The status change sends the status it read (or --from): a cancelled order moves only with --from cancelled.
    const shownPo = await admin(['production', 'show', po])
    assert.equal(shownPo.status, 0, shownPo.stderr)
    assert.match(shownPo.stdout, /^Status: +completed$/m)
    assert.match(shownPo.stdout, new RegExp(`^External id: +${body.external_order_id}$`, 'm'))
    const secondPo = (await json(['orders', 'show', second.id])).production_order.id
    const refused = await admin(['production', 'status', secondPo, 'completed'])
    assert.equal(refused.status, 2, refused.stderr)
    assert.match(
      refused.stderr,
      /is cancelled: its organization's live webhook endpoints were sent order\.cancelled; moving it to completed sends them order\.production_completed after that\. Nothing was done\./,
    )
    assert.match(refused.stderr, new RegExp(`production status ${secondPo} completed --from cancelled`))
    const stale = await admin(['production', 'status', secondPo, 'in_progress', '--from', 'pending'])
    assert.equal(stale.status, 1)
    assert.match(stale.stderr, /^Error: 409 production_conflict: .*its production status is now cancelled/)
    assert.equal((await json(['production', 'show', secondPo])).production_order.status, 'cancelled')
    const reopened = await admin(['production', 'status', secondPo, 'pending', '--from', 'cancelled'])
    assert.equal(reopened.status, 0, reopened.stderr)
    assert.match(reopened.stdout, /is pending \(was cancelled\)$/m)
  })

  test('usage: every organization of a month, with totals; a bad month is a usage error (exit 2)', async () => {
    const org = await json(['organizations', 'create', 'Usage Org'])
    const key = (await json(['keys', 'create', org.id, '--env', 'live'])).key
    const body = orderBody({ items: [{ sku: 'MUG-9', name: 'Mug', quantity: 3 }] })
    const order = (await callService(service.port, key, 'POST', '/v1/orders', body)).body.data.order
    assert.match((await admin(['production', 'cancel', order.id])).stdout, /is cancelled/)
    const month = new Date().toISOString().slice(0, 7)
    const usage = await json(['usage', '--month', month])
    assert.equal(usage.month, month)
    const row = usage.organizations.find((o: { id: string }) => o.id === org.id)
    assert.deepEqual([row.orders, row.items, row.quantity], [1, 1, 3])
    const human = await admin(['usage', '--month', month])
    assert.equal(human.status, 0, human.stderr)
    assert.match(human.stdout, new RegExp(`^Usage in ${month} \\(UTC\\)`))
    const lines = assertAligned(human.stdout.split('\n\n')[1]!, [
      'ORGANIZATION',
      'ID',
      'ORDERS',
      'ITEMS',
      'QUANTITY',
    ])
    assert.match(lines.find((l) => l.includes(org.id))!, /^Usage Org +\S+ +1 +1 +3$/)
    const { orders, items, quantity } = usage.totals
    assert.match(lines.at(-1)!, new RegExp(`^Total +- +${orders} +${items} +${quantity}$`))
    const bad = await admin(['usage', '--month', '2026-13'])
    assert.equal(bad.status, 2)
    assert.match(bad.stderr, /--month takes a month as YYYY-MM/)
  })

  test('shop orders from a file or stdin; they are live and send no events', async () => {
    const org = await json(['organizations', 'create', 'Shop Org'])
    const file = join(dataDir, 'shop-order.json')
    writeFileSync(file, JSON.stringify(orderBody({ external_order_id: 'SHOP-1' })))
    const created = await admin(['shop-orders', 'create', org.id, '--file', file])
    assert.equal(created.status, 0, created.stderr)
    assert.match(created.stdout, /\(SHOP-1\), pending; it sends no webhook events\./)
    const fromStdin = adminProcess(
      ['shop-orders', 'create', org.id, '--file', '-', '--json'],
      {},
      JSON.stringify(orderBody({ external_order_id: 'SHOP-2' })),
    )
    assert.equal(fromStdin.status, 0, fromStdin.stderr)
    assert.equal(JSON.parse(fromStdin.stdout).order.source, 'shop')
    const notJson = await admin(['shop-orders', 'create', org.id, '--file', join(dataDir, 'missing.json')])
    assert.equal(notJson.status, 2)
    assert.equal((await json(['stats', org.id])).orders_total, 2)
  })

  test('personal-data: preview, export, erase only with --yes; retention shown and set', async () => {
    const org = await json(['organizations', 'create', 'Privacy Org'])
    const file = join(dataDir, 'privacy-order.json')
    const email = 'jana.privacy@kunden.example'
    writeFileSync(file, JSON.stringify(orderBody({ customer: { name: 'Jana Quennell', email } })))
    assert.equal((await admin(['shop-orders', 'create', org.id, '--file', file])).status, 0)
    const preview = await admin(['personal-data', 'preview', org.id, '--email', email.toUpperCase()])
    assert.equal(preview.status, 0, preview.stderr)
    assert.match(preview.stdout, /^1 orders found \(1 live, 0 test/)
    assert.match(preview.stdout, /Jana Quennell, jana\.privacy@kunden\.example/)
    const exported = await admin(['personal-data', 'export', org.id, '--email', email])
    assert.equal(exported.status, 0, exported.stderr)
    assert.equal(JSON.parse(exported.stdout).orders[0].customer.email, email)
    const asked = await admin(['personal-data', 'erase', org.id, '--email', email])
    assert.equal(asked.status, 0, asked.stderr)
    assert.match(asked.stdout, /Nothing was erased: add --yes to erase it/)
    const erased = await admin(['personal-data', 'erase', org.id, '--email', email, '--yes', '--json'])
    assert.equal(erased.status, 0, erased.stderr)
    assert.equal(JSON.parse(erased.stdout).orders, 1)
    assert.match(
      (await admin(['personal-data', 'preview', org.id, '--email', email])).stdout,
      /^0 orders found/,
    )
    assert.equal((await admin(['personal-data', 'preview', org.id])).status, 2)
    assert.equal(
      (await admin(['personal-data', 'erase', org.id, '--email', email, '--personalization', 'x'])).status,
      2,
    )

    assert.match((await admin(['retention', 'show', org.id])).stdout, /Request bodies: {3}30 days/)
    const set = await admin(['retention', 'set', org.id, '--request-bodies', '7', '--finished-orders', '365'])
    assert.equal(set.status, 0, set.stderr)
    assert.match(
      set.stdout,
      /Request bodies: {3}7 days\nWebhook answers: {2}90 days\nFinished orders: {2}customer erased after 365 days/,
    )
    assert.equal((await admin(['retention', 'set', org.id, '--request-bodies', '31'])).status, 1)
    assert.match(
      (await admin(['retention', 'set', org.id, '--finished-orders', 'off'])).stdout,
      /Finished orders: {2}kept \(off\)/,
    )
  })

  test('deliveries: the log, one entry, redelivery of an unknown one (exit 1)', async () => {
    const page = await json(['deliveries', 'list', '--limit', '5'])
    assert.ok(Array.isArray(page.data))
    assert.ok('next_cursor' in page)
    const empty = await admin(['deliveries', 'list', '--status', 'failed'])
    assert.equal(empty.status, 0)
    const missing = adminProcess(['deliveries', 'redeliver', '0193a000-0000-7000-8000-000000000099'])
    assert.equal(missing.status, 1)
    assert.match(missing.stderr, /^Error: 404 not_found/)
    assert.equal((await admin(['deliveries', 'show', 'nope'])).status, 1)
    assert.equal((await admin(['deliveries', 'list', '--limit', 'many'])).status, 2)
  })

  test("endpoints: an organization's endpoints with their filters, of one environment; replay and its status", async () => {
    const org = await json(['organizations', 'create', 'Endpoint Org'])
    const live = (await json(['keys', 'create', org.id, '--env', 'live'])).key
    const test = (await json(['keys', 'create', org.id, '--env', 'test'])).key
    const created = await callService(service.port, live, 'POST', '/v1/webhook-endpoints', {
      url: 'https://127.0.0.1:9/orders',
      enabled_events: ['order.received', 'order.cancelled'],
    })
    assert.equal(created.status, 201, JSON.stringify(created.body))
    await callService(service.port, test, 'POST', '/v1/webhook-endpoints', {
      url: 'https://127.0.0.1:9/test',
    })
    const id = created.body.data.endpoint.id as string

    const listed = await admin(['endpoints', 'list', org.id])
    assert.equal(listed.status, 0, listed.stderr)
    const lines = assertAligned(listed.stdout, [
      'ID',
      'URL',
      'STATE',
      'EVENTS',
      'FAILURES',
      'LAST SUCCESS',
      'ROTATION ENDS',
    ])
    assert.equal(lines.length, 2)
    assert.match(
      lines[1]!,
      new RegExp(
        `^${id} +https://127\\.0\\.0\\.1:9/orders +active +order\\.received,order\\.cancelled +0 +- +-$`,
      ),
    )
    const tests = await json(['endpoints', 'list', org.id, '--env', 'test'])
    assert.deepEqual(
      tests.map((e: { url: string }) => e.url),
      ['https://127.0.0.1:9/test'],
    )
    const none = await admin([
      'endpoints',
      'list',
      (await json(['organizations', 'create', 'No Endpoints'])).id,
    ])
    assert.equal(none.stdout.trim(), 'No endpoints.')
    assert.equal((await admin(['endpoints', 'list', '0193a000-0000-7000-8000-000000000099'])).status, 1)

    await callService(service.port, live, 'POST', '/v1/orders', orderBody())
    const replay = await admin(['endpoints', 'replay', id, '--since', '2026-01-01T00:00:00Z'])
    assert.equal(replay.status, 0, replay.stderr)
    assert.match(replay.stdout, /^Replay \S+: 1 event queued \((running|completed)\)$/m)
    assert.match((await admin(['endpoints', 'replay-status', id])).stdout, /^Queued: +[01] of 1$/m)
    assert.equal((await admin(['endpoints', 'replay', id])).status, 2)
  })

  test('invitations and operators: links printed once; operators listed once accepted', async () => {
    const org = await json(['organizations', 'create', 'Invite Org'])
    const invited = await admin(['invitations', 'create', org.id, 'owner@example.com'])
    assert.equal(invited.status, 0, invited.stderr)
    assert.match(invited.stdout, /Invitation for owner@example\.com \(owner\), valid until .* \(in 7 days\):/)
    const op = await admin(['operators', 'invite', 'ops@example.com'])
    assert.equal(op.status, 0, op.stderr)
    const link = /http:\/\/localhost:\d+\/dashboard\/invitation#token=(\w+)/.exec(op.stdout)
    assert.ok(link, op.stdout)
    assert.match((await admin(['operators', 'list'])).stdout, /No operator accounts yet/)

    const accepted = await acceptInvitation(link[1]!)
    assert.equal(accepted.status, 200)
    assert.equal(accepted.kind, 'operator')
    const operators = await admin(['operators', 'list'])
    assertAligned(operators.stdout, ['ID', 'EMAIL', 'SINCE'])
    assert.match(operators.stdout, /ops@example\.com +just now/)
    const again = await admin(['operators', 'invite', 'ops@example.com'])
    assert.equal(again.status, 1)
    assert.match(again.stderr, /409 member_exists/)
  })

  test('invitations and operators: ids printed, listed and revoked; an operator account removed', async () => {
    const org = await json(['organizations', 'create', 'Revoke Org'])
    const created = await admin(['invitations', 'create', org.id, 'pending@example.com', '--role', 'viewer'])
    assert.equal(created.status, 0, created.stderr)
    const id = /^Id: (\S+) \(to revoke it: npm run admin -- invitations revoke \1\)$/m.exec(
      created.stdout,
    )?.[1]
    assert.ok(id, created.stdout)
    const lines = assertAligned((await admin(['invitations', 'list', org.id])).stdout, [
      'ID',
      'EMAIL',
      'ROLE',
      'CREATED',
      'EXPIRES',
    ])
    assert.match(
      lines[1]!,
      new RegExp(`^${id} +pending@example\\.com +viewer +just now +in [67] days$`),
      'a week, less the seconds since',
    )
    const revoked = await admin(['invitations', 'revoke', id])
    assert.equal(revoked.status, 0, revoked.stderr)
    assert.equal(revoked.stdout.trim(), `Revoked invitation ${id} for pending@example.com (viewer)`)
    assert.equal((await admin(['invitations', 'list', org.id])).stdout.trim(), 'No pending invitations.')
    const again = await admin(['invitations', 'revoke', id])
    assert.equal(again.status, 1)
    assert.match(again.stderr, /404 not_found/)

    const op = await admin(['operators', 'invite', 'revoked-op@example.com'])
    const opId = /^Id: (\S+) \(to revoke it: npm run admin -- operators revoke-invitation \1\)$/m.exec(
      op.stdout,
    )?.[1]
    assert.ok(opId, op.stdout)
    const token = /#token=(\w+)/.exec(op.stdout)![1]!
    const pending = assertAligned((await admin(['operators', 'invitations'])).stdout, [
      'ID',
      'EMAIL',
      'CREATED',
      'EXPIRES',
    ])
    assert.ok(
      pending.some((line) => line.startsWith(`${opId} `)),
      pending.join('\n'),
    )
    const opRevoked = await json(['operators', 'revoke-invitation', opId])
    assert.equal(opRevoked.email, 'revoked-op@example.com')
    assert.equal(typeof opRevoked.revoked_at, 'string')
    assert.equal((await acceptInvitation(token)).status, 404, 'the revoked link')

    const link = /#token=(\w+)/.exec(
      (await admin(['operators', 'invite', 'removed-op@example.com'])).stdout,
    )![1]!
    const signedIn = await acceptInvitation(link)
    assert.equal(signedIn.status, 200)
    const operatorId = (await json(['operators', 'list'])).find(
      (o: { email: string }) => o.email === 'removed-op@example.com',
    ).id
    const removed = await admin(['operators', 'remove', operatorId])
    assert.equal(removed.status, 0, removed.stderr)
    assert.equal(
      removed.stdout.trim(),
      `Removed operator removed-op@example.com (${operatorId}); 1 session ended`,
    )
    const after = await fetch(`http://127.0.0.1:${service.port}/dashboard/api/operator/operators`, {
      headers: { cookie: signedIn.cookie },
    })
    assert.equal(after.status, 401, 'its session ended')
    assert.ok(!(await admin(['operators', 'list'])).stdout.includes('removed-op@example.com'))
    assert.equal((await admin(['operators', 'remove', operatorId])).status, 1)
  })

  test('password-reset EMAIL: the link printed once, for a member or an operator; an unknown email exits 1', async () => {
    const link = /#token=(\w+)/.exec(
      (await admin(['operators', 'invite', 'forgetful@example.com'])).stdout,
    )![1]!
    assert.equal((await acceptInvitation(link)).status, 200)
    const reset = await admin(['password-reset', 'Forgetful@example.com'])
    assert.equal(reset.status, 0, reset.stderr)
    assert.match(
      reset.stdout,
      /^Password reset link for forgetful@example\.com, valid until \S+ \(in (59 min|1 h)\):\n {2}http:\/\/localhost:\d+\/dashboard\/password-reset#token=\w{43}\n/,
    )
    assert.match(reset.stdout, /ends every session of the account and signs in/)
    const again = await json(['password-reset', 'forgetful@example.com'])
    assert.equal(again.password_reset.replaced, true, 'the first link no longer works')
    const unknown = await admin(['password-reset', 'nobody@example.com'])
    assert.equal(unknown.status, 1)
    assert.match(unknown.stderr, /404 not_found/)
  })

  test("rules: an organization's automation rules in run order, in words; an unknown organization exits 1", async () => {
    const org = await json(['organizations', 'create', 'Rules Org'])
    assert.equal((await admin(['rules', '--org', org.id])).stdout.trim(), 'No automation rules.')
    const invited = await admin(['invitations', 'create', org.id, 'dev@rules.example', '--role', 'developer'])
    const member = await acceptInvitation(/#token=(\w+)/.exec(invited.stdout)![1]!)
    assert.equal(member.status, 200)
    const base = `http://127.0.0.1:${service.port}`
    const session = await fetch(`${base}/dashboard/api/session`, { headers: { cookie: member.cookie } })
    const csrf = (await session.json()).data.csrf_token as string
    for (const rule of [
      {
        name: 'Large mugs',
        conditions: [
          { field: 'item.sku', operator: 'starts_with', value: 'MUG' },
          { field: 'item.quantity', operator: 'gt', value: 50 },
        ],
        actions: [{ type: 'hold' }, { type: 'tag', value: 'large' }],
      },
      { name: 'VIP rush', enabled: false, actions: [{ type: 'priority', value: 'rush' }] },
    ]) {
      const res = await fetch(`${base}/dashboard/api/automation/rules`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          origin: base,
          cookie: member.cookie,
          'x-csrf-token': csrf,
        },
        body: JSON.stringify(rule),
      })
      assert.equal(res.status, 201, await res.text())
    }

    const listed = await admin(['rules', '--org', org.id])
    assert.equal(listed.status, 0, listed.stderr)
    const [head, rules] = listed.stdout.split('\n\n')
    assert.equal(head, '2 of at most 50 rules, in the order they run on live orders:')
    const lines = assertAligned(rules!, ['#', 'ID', 'NAME', 'STATE', 'WHEN', 'THEN'])
    assert.equal(lines.length, 3)
    assert.match(
      lines[1]!,
      /^1 +\S+ +Large mugs +enabled +Item SKU starts with MUG; Item quantity greater than 50 +hold for review, tag "large"$/,
    )
    assert.match(lines[2]!, /^2 +\S+ +VIP rush +disabled +Every live order +priority rush$/)
    const data = await json(['rules', '--org', org.id])
    assert.deepEqual(
      data.rules.map((r: { name: string; position: number }) => [r.position, r.name]),
      [
        [1, 'Large mugs'],
        [2, 'VIP rush'],
      ],
    )
    assert.equal(data.max_rules, 50)

    const unknown = await admin(['rules', '--org', '0193a000-0000-7000-8000-000000000099'])
    assert.equal(unknown.status, 1)
    assert.match(unknown.stderr, /^Error: 404 not_found/)
    const missing = await admin(['rules'])
    assert.equal(missing.status, 2)
    assert.match(missing.stderr, /--org is required/)
  })

  test('the earlier one-word commands still work', async () => {
    const org = await json(['create-org', 'Alias Org'])
    assert.equal(org.name, 'Alias Org')
    assert.match((await admin(['list-orgs'])).stdout, /Alias Org/)
    assert.equal((await admin(['list-keys', org.id])).status, 0)
  })
})

test('the operator token stays out of the service log and the CLI output', async () => {
  assert.ok(!service.output().includes(token))
  assert.ok(!(await admin(['organizations', 'list'])).stdout.includes(token))
})

test('docs/cli.md lists every command with its usage and example', async () => {
  const doc = readFileSync('docs/cli.md', 'utf8')
  for (const c of COMMANDS) {
    assert.ok(doc.includes(`- \`${[c.name, ...c.args].join(' ')}\``), `${c.name} listed`)
    assert.ok(doc.includes(`Example: \`npm run admin -- ${c.example}\``), `${c.name} example`)
  }
})
