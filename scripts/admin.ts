/**
 * npm run admin -- <command>: a small client of the operator API (/admin/v1) of
 * a running service. It talks HTTP rather than opening the database, because
 * the embedded database belongs to the one service process that opened it.
 *
 *   bootstrap [--name NAME]                 organization + a test and a live key with every scope
 *   create-org NAME
 *   list-orgs
 *   create-key ORG_ID --env test|live [--scopes a,b] [--name NAME] [--expires-at ISO]
 *   list-keys ORG_ID
 *   revoke-key KEY_ID
 *   create-product ORG_ID SKU NAME
 *   stats ORG_ID
 *   get-order ORDER_ID                      operator view: production order id, each item's job id
 *   set-status PRODUCTION_ORDER_ID pending|in_progress|completed|failed|cancelled
 *   complete-job PRODUCTION_JOB_ID
 *   list-deliveries [--org ORG_ID] [--endpoint ENDPOINT_ID] [--limit N]
 *   redeliver DELIVERY_ID                   the same event again, as a new delivery sent at once
 *   invite ORG_ID EMAIL [--role owner|developer|viewer]
 *                                           a dashboard invitation (owner by default): prints the link
 *
 * Service address: --url, else the service's own (PUBLIC_BASE_URL, else http://localhost:$PORT).
 * Token: OPERATOR_TOKEN, else the file DATA_DIR/operator-token. Unset variables
 * take the service's defaults.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { ConfigError, loadConfig } from '../src/config.ts'
import { OPERATOR_TOKEN_FILE } from '../src/operator-token.ts'

const ALL_SCOPES = ['orders:read', 'orders:write', 'files:write', 'webhooks:manage']

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    url: { type: 'string' },
    name: { type: 'string' },
    env: { type: 'string' },
    scopes: { type: 'string' },
    'expires-at': { type: 'string' },
    org: { type: 'string' },
    endpoint: { type: 'string' },
    limit: { type: 'string' },
    role: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
})

function fail(message: string): never {
  console.error(message)
  process.exit(1)
}

function usage(): never {
  const source = readFileSync(new URL(import.meta.url), 'utf8')
  console.log(source.slice(source.indexOf('/**') + 3, source.indexOf('*/')).replace(/^ \* ?/gm, ''))
  process.exit(0)
}

function serviceConfig() {
  try {
    return loadConfig()
  } catch (err) {
    if (err instanceof ConfigError) fail(`configuration error: ${err.message}`)
    throw err
  }
}
const config = serviceConfig()
const baseUrl = (values.url || config.publicBaseUrl).replace(/\/+$/, '')

function operatorToken(): string {
  if (config.operatorToken) return config.operatorToken
  const path = join(config.dataDir, OPERATOR_TOKEN_FILE)
  try {
    return readFileSync(path, 'utf8').trim()
  } catch {
    return fail(
      `No OPERATOR_TOKEN set and no token file at ${path}. Start the service once (npm start) first.`,
    )
  }
}

/** The operator API's answer; `data` has the shape the caller names (unchecked: the service defines it). */
async function call<T = unknown>(method: string, path: string, body?: unknown): Promise<{ data: T }> {
  let res: Response
  try {
    res = await fetch(`${baseUrl}/admin/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${operatorToken()}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
  } catch (err) {
    return fail(
      `Cannot reach the service at ${baseUrl}: ${(err as Error).message}. Is it running (npm start)?`,
    )
  }
  const json = (await res.json().catch(() => undefined)) as { data: T; error?: unknown } | undefined
  if (!res.ok || !json) fail(`${method} ${path}: ${res.status} ${JSON.stringify(json?.error ?? json)}`)
  return json
}

const print = (value: unknown) => console.log(JSON.stringify(value, null, 2))
const [command, ...args] = positionals
if (values.help || !command) usage()

switch (command) {
  case 'bootstrap': {
    const { organization } = (
      await call<{ organization: { id: string; name: string } }>('POST', '/organizations', {
        name: values.name ?? 'My organization',
      })
    ).data
    const keys: Record<string, string> = {}
    for (const environment of ['test', 'live']) {
      const created = (
        await call<{ key: string }>('POST', `/organizations/${organization.id}/api-keys`, {
          environment,
          scopes: ALL_SCOPES,
          name: `${environment} key (bootstrap)`,
        })
      ).data
      keys[environment] = created.key
    }
    console.log(`Organization: ${organization.name} (${organization.id})`)
    console.log(`Test key:     ${keys.test}`)
    console.log(`Live key:     ${keys.live}`)
    console.log('\nThe keys are shown once; store them now. Try:')
    console.log(`  curl -H "Authorization: Bearer ${keys.test}" ${baseUrl}/v1/ping`)
    break
  }
  case 'create-org':
    print((await call('POST', '/organizations', { name: args[0] ?? fail('create-org NAME') })).data)
    break
  case 'list-orgs':
    print((await call('GET', '/organizations')).data)
    break
  case 'create-key': {
    const orgId = args[0] ?? fail('create-key ORG_ID --env test|live')
    print(
      (
        await call('POST', `/organizations/${orgId}/api-keys`, {
          environment: values.env ?? fail('--env test|live is required'),
          scopes: values.scopes ? values.scopes.split(',').map((s) => s.trim()) : ALL_SCOPES,
          ...(values.name ? { name: values.name } : {}),
          ...(values['expires-at'] ? { expires_at: values['expires-at'] } : {}),
        })
      ).data,
    )
    break
  }
  case 'list-keys':
    print((await call('GET', `/organizations/${args[0] ?? fail('list-keys ORG_ID')}/api-keys`)).data)
    break
  case 'revoke-key':
    print((await call('DELETE', `/api-keys/${args[0] ?? fail('revoke-key KEY_ID')}`)).data)
    break
  case 'create-product': {
    const [orgId, sku, name] = args
    if (!orgId || !sku || !name) fail('create-product ORG_ID SKU NAME')
    print((await call('POST', `/organizations/${orgId}/products`, { sku, name })).data)
    break
  }
  case 'stats':
    print((await call('GET', `/organizations/${args[0] ?? fail('stats ORG_ID')}/stats`)).data)
    break
  case 'get-order':
    print((await call('GET', `/orders/${args[0] ?? fail('get-order ORDER_ID')}`)).data)
    break
  case 'set-status': {
    const [id, status] = args
    if (!id || !status) fail('set-status PRODUCTION_ORDER_ID STATUS')
    print((await call('POST', `/production-orders/${id}/status`, { status })).data)
    break
  }
  case 'complete-job':
    print(
      (await call('POST', `/production-jobs/${args[0] ?? fail('complete-job PRODUCTION_JOB_ID')}/complete`))
        .data,
    )
    break
  case 'list-deliveries': {
    const query = new URLSearchParams()
    if (values.org) query.set('organization_id', values.org)
    if (values.endpoint) query.set('endpoint_id', values.endpoint)
    if (values.limit) query.set('limit', values.limit)
    print((await call('GET', `/webhook-deliveries?${query}`)).data)
    break
  }
  case 'redeliver':
    print(
      (await call('POST', `/webhook-deliveries/${args[0] ?? fail('redeliver DELIVERY_ID')}/redeliver`)).data,
    )
    break
  case 'invite': {
    const [orgId, email] = args
    if (!orgId || !email) fail('invite ORG_ID EMAIL [--role owner|developer|viewer]')
    const { invitation, url } = (
      await call<{ invitation: { email: string; role: string; expires_at: string }; url: string }>(
        'POST',
        `/organizations/${orgId}/invitations`,
        { email, role: values.role ?? 'owner' },
      )
    ).data
    console.log(
      `Invitation for ${invitation.email} (${invitation.role}), valid until ${invitation.expires_at}:`,
    )
    console.log(`  ${url}`)
    console.log('\nThe link is shown once and works once: pass it on to set the password and sign in.')
    break
  }
  default:
    fail(`Unknown command ${command}; see npm run admin -- --help`)
}
