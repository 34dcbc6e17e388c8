/** Commands for organizations and their API keys, and bootstrap. */
import { type Column, fields, relativeTime, table } from '../format.ts'
import { ALL_SCOPES, type Command, type Json, required, str } from './command.ts'

const orgColumns: Column<Json>[] = [
  ['ID', (o) => o.id],
  ['NAME', (o) => o.name],
  ['CREATED', (o) => relativeTime(o.created_at)],
]

/** Revoked, expired or active, as the list shows a key. */
function keyState(k: Json): string {
  if (k.revoked_at) return `revoked ${relativeTime(k.revoked_at)}`
  if (k.expires_at && Date.parse(k.expires_at) <= Date.now()) return 'expired'
  if (k.expires_at) return `active, expires ${relativeTime(k.expires_at)}`
  return 'active'
}

const keyColumns: Column<Json>[] = [
  ['ID', (k) => k.id],
  ['ENV', (k) => k.environment],
  ['PREFIX', (k) => k.key_prefix],
  ['NAME', (k) => k.name],
  ['SCOPES', (k) => k.scopes.join(',')],
  ['STATE', (k) => keyState(k)],
  ['CREATED', (k) => relativeTime(k.created_at)],
]

export const ORGANIZATIONS_COMMANDS: Command[] = [
  {
    name: 'bootstrap',
    args: [],
    summary: 'An organization with a test and a live key carrying every scope (first start)',
    example: 'bootstrap --name "Acme Prints"',
    options: { name: { type: 'string', value: 'NAME', description: 'the organization (My organization)' } },
    async run(ctx) {
      const existing = (await ctx.call('GET', '/organizations')).data as Json[]
      if (existing.length > 0) {
        const names = existing.map((o) => o.name).join(', ')
        ctx.note(
          `Warning: ${existing.length} organization(s) already exist (${names}). bootstrap creates another one ` +
            'with new keys; to add keys to an existing organization use `keys create ORG_ID --env test|live`.',
        )
      }
      const { organization } = (
        await ctx.call('POST', '/organizations', { name: str(ctx, 'name') ?? 'My organization' })
      ).data
      const keys: Record<string, string> = {}
      for (const environment of ['test', 'live']) {
        const created = await ctx.call('POST', `/organizations/${organization.id}/api-keys`, {
          environment,
          scopes: ALL_SCOPES,
          name: `${environment} key (bootstrap)`,
        })
        keys[environment] = created.data.key
      }
      ctx.print({ organization, test_key: keys.test, live_key: keys.live }, () =>
        [
          `Organization: ${organization.name} (${organization.id})`,
          `Test key:     ${keys.test}`,
          `Live key:     ${keys.live}`,
          '',
          'The keys are shown once; store them now. Try:',
          `  curl -H "Authorization: Bearer ${keys.test}" ${ctx.baseUrl}/v1/ping`,
        ].join('\n'),
      )
    },
  },
  {
    name: 'organizations list',
    args: [],
    summary: 'Every organization',
    example: 'organizations list',
    async run(ctx) {
      const { data } = await ctx.call('GET', '/organizations')
      ctx.print(data, () => table(data, orgColumns, 'No organizations yet: try `bootstrap`.'))
    },
  },
  {
    name: 'organizations create',
    args: ['NAME'],
    summary: 'A new organization (no keys: see keys create, invitations create)',
    example: 'organizations create "Acme Prints"',
    async run(ctx) {
      const { organization } = (await ctx.call('POST', '/organizations', { name: ctx.args[0] })).data
      ctx.print(organization, () => `Created organization ${organization.name} (${organization.id})`)
    },
  },
  {
    name: 'keys list',
    args: ['ORG_ID'],
    summary: "An organization's API keys, newest first",
    example: 'keys list ORG_ID',
    async run(ctx) {
      const { data } = await ctx.call('GET', `/organizations/${ctx.args[0]}/api-keys`)
      ctx.print(data, () => table(data, keyColumns, 'No keys.'))
    },
  },
  {
    name: 'keys create',
    args: ['ORG_ID'],
    summary: 'A new API key; the key itself is shown once',
    example: 'keys create ORG_ID --env live --scopes orders:read,orders:write --name "Shop sync"',
    options: {
      env: { type: 'string', value: 'test|live', description: 'the environment (required)' },
      scopes: { type: 'string', value: 'A,B', description: `comma-separated (all: ${ALL_SCOPES.join(',')})` },
      name: { type: 'string', value: 'NAME', description: 'a label' },
      'expires-at': { type: 'string', value: 'ISO', description: 'an expiry, e.g. 2027-01-01T00:00:00Z' },
    },
    async run(ctx) {
      const scopes = str(ctx, 'scopes')
      const expires = str(ctx, 'expires-at')
      const name = str(ctx, 'name')
      const created = (
        await ctx.call('POST', `/organizations/${ctx.args[0]}/api-keys`, {
          environment: required(ctx, 'env'),
          scopes: scopes ? scopes.split(',').map((s) => s.trim()) : ALL_SCOPES,
          ...(name ? { name } : {}),
          ...(expires ? { expires_at: expires } : {}),
        })
      ).data
      ctx.print(created, () =>
        [
          fields([
            ['Key id', created.api_key.id],
            ['Environment', created.api_key.environment],
            ['Scopes', created.api_key.scopes.join(', ')],
            ['Expires', created.api_key.expires_at ?? 'never'],
          ]),
          '',
          `Key: ${created.key}`,
          'It is shown once; store it now.',
        ].join('\n'),
      )
    },
  },
  {
    name: 'keys revoke',
    args: ['KEY_ID'],
    summary: 'Revoke a key at once (a second revocation keeps the first time)',
    example: 'keys revoke KEY_ID',
    async run(ctx) {
      const { data } = await ctx.call('DELETE', `/api-keys/${ctx.args[0]}`)
      ctx.print(data, () => `Revoked key ${data.id} (${relativeTime(data.revoked_at)})`)
    },
  },
]
