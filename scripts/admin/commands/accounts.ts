/** Commands for invitations to organizations, the platform's operators, and password resets. */
import { type Column, relativeTime, table } from '../format.ts'
import { type Command, type Json, str } from './command.ts'

/** A new invitation: its link (shown once) and how to revoke it. */
function invitationText(data: Json, what: string, revoke: string): string {
  const role = data.invitation.role ? ` (${data.invitation.role})` : ''
  return [
    `${what} for ${data.invitation.email}${role}, valid until ${data.invitation.expires_at} (${relativeTime(data.invitation.expires_at)}):`,
    `  ${data.url}`,
    '',
    'The link is shown once and works once: pass it on to set the password and sign in.',
    `Id: ${data.invitation.id} (to revoke it: npm run admin -- ${revoke} ${data.invitation.id})`,
  ].join('\n')
}

const invitationColumns: Column<Json>[] = [
  ['ID', (i) => i.id],
  ['EMAIL', (i) => i.email],
  ['ROLE', (i) => i.role],
  ['CREATED', (i) => relativeTime(i.created_at)],
  ['EXPIRES', (i) => relativeTime(i.expires_at)],
]

export const INVITATIONS_COMMANDS: Command[] = [
  {
    name: 'invitations create',
    args: ['ORG_ID', 'EMAIL'],
    summary: 'A dashboard invitation to an organization (its first owner, usually): the link, once',
    example: 'invitations create ORG_ID owner@example.com --role owner',
    options: { role: { type: 'string', value: 'owner|developer|viewer', description: 'the role (owner)' } },
    async run(ctx) {
      const [org, email] = ctx.args
      const data = (
        await ctx.call('POST', `/organizations/${org}/invitations`, {
          email,
          role: str(ctx, 'role') ?? 'owner',
        })
      ).data
      ctx.print(data, () => invitationText(data, 'Invitation', 'invitations revoke'))
    },
  },
  {
    name: 'invitations list',
    args: ['ORG_ID'],
    summary: "An organization's pending invitations (not accepted, revoked or expired)",
    example: 'invitations list ORG_ID',
    async run(ctx) {
      const { data } = await ctx.call('GET', `/organizations/${ctx.args[0]}/invitations`)
      ctx.print(data, () => table<Json>(data, invitationColumns, 'No pending invitations.'))
    },
  },
  {
    name: 'invitations revoke',
    args: ['INVITATION_ID'],
    summary: 'Revoke a pending dashboard invitation: its link stops working at once',
    example: 'invitations revoke INVITATION_ID',
    async run(ctx) {
      const { invitation } = (await ctx.call('DELETE', `/invitations/${ctx.args[0]}`)).data
      ctx.print(
        invitation,
        () => `Revoked invitation ${invitation.id} for ${invitation.email} (${invitation.role})`,
      )
    },
  },
]

export const OPERATORS_COMMANDS: Command[] = [
  {
    name: 'operators list',
    args: [],
    summary: 'The operator accounts of the platform',
    example: 'operators list',
    async run(ctx) {
      const { data } = await ctx.call('GET', '/operators')
      ctx.print(data, () =>
        table<Json>(
          data,
          [
            ['ID', (o) => o.id],
            ['EMAIL', (o) => o.email],
            ['SINCE', (o) => relativeTime(o.created_at)],
          ],
          'No operator accounts yet: try `operators invite EMAIL`.',
        ),
      )
    },
  },
  {
    name: 'operators invite',
    args: ['EMAIL'],
    summary: 'An operator account invitation: the link (7 days, single use), once',
    example: 'operators invite ops@example.com',
    async run(ctx) {
      const data = (await ctx.call('POST', '/operators/invitations', { email: ctx.args[0] })).data
      ctx.print(data, () => invitationText(data, 'Operator invitation', 'operators revoke-invitation'))
    },
  },
  {
    name: 'operators invitations',
    args: [],
    summary: 'The pending operator invitations (not accepted, revoked or expired)',
    example: 'operators invitations',
    async run(ctx) {
      const { data } = await ctx.call('GET', '/operators/invitations')
      ctx.print(data, () =>
        table<Json>(
          data,
          invitationColumns.filter(([h]) => h !== 'ROLE'),
          'No pending operator invitations.',
        ),
      )
    },
  },
  {
    name: 'operators revoke-invitation',
    args: ['INVITATION_ID'],
    summary: 'Revoke a pending operator invitation: its link stops working at once',
    example: 'operators revoke-invitation INVITATION_ID',
    async run(ctx) {
      const { invitation } = (await ctx.call('DELETE', `/operators/invitations/${ctx.args[0]}`)).data
      ctx.print(invitation, () => `Revoked operator invitation ${invitation.id} for ${invitation.email}`)
    },
  },
  {
    name: 'operators remove',
    args: ['OPERATOR_ID'],
    summary: 'Remove an operator account: its sessions end at once, its email is free (the token remains)',
    example: 'operators remove OPERATOR_ID',
    async run(ctx) {
      const data = (await ctx.call('DELETE', `/operators/${ctx.args[0]}`)).data
      const n = data.sessions_ended
      ctx.print(
        data,
        () =>
          `Removed operator ${data.operator.email} (${data.operator.id}); ${n} session${n === 1 ? '' : 's'} ended`,
      )
    },
  },
]

export const PASSWORD_RESET_COMMANDS: Command[] = [
  {
    name: 'password-reset',
    args: ['EMAIL'],
    summary:
      "A password reset link for a member's or an operator's account: the link (1 hour, single use), once",
    example: 'password-reset ada@example.com',
    async run(ctx) {
      const data = (await ctx.call('POST', '/password-resets', { email: ctx.args[0] })).data
      const reset = data.password_reset
      ctx.print(data, () =>
        [
          `Password reset link for ${reset.email}, valid until ${reset.expires_at} (${relativeTime(reset.expires_at)}):`,
          `  ${data.url}`,
          '',
          'The link is shown once and works once: it sets a new password, ends every session of the account and signs in.',
          ...(reset.replaced ? ['The unused link issued before for this account no longer works.'] : []),
        ].join('\n'),
      )
    },
  },
]
