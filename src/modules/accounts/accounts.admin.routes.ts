import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import Type from 'typebox'
import { closed, OrgParams, op, opCreate } from '../../http/admin-route-config.ts'
import { Email, InvitationParams, OperatorInviteBody } from './accounts.dashboard.schemas.ts'
import type { AccountService } from './accounts.service.ts'

/** /admin/v1 accounts: an organization's invitations, and the operators with theirs; password reset links. */
export function accountsAdminRoutes(deps: { accounts: AccountService }) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()

    app.post(
      '/organizations/:org_id/invitations',
      {
        config: { ...opCreate, errors: ['member_exists'] },
        schema: { params: OrgParams, body: OperatorInviteBody },
      },
      async (request, reply) => {
        const { email, role } = request.body
        const created = await deps.accounts.inviteByOperator(request.params.org_id, {
          email,
          role: role ?? 'owner',
        })
        reply.code(201)
        return { data: created }
      },
    )

    app.get(
      '/organizations/:org_id/invitations',
      { config: op, schema: { params: OrgParams } },
      async (request) => ({ data: await deps.accounts.listInvitationsOf(request.params.org_id) }),
    )

    // A pending invitation of any organization; anything else (accepted, expired, revoked) is 404.
    app.delete(
      '/invitations/:invitation_id',
      { config: op, schema: { params: InvitationParams } },
      async (request) => ({
        data: { invitation: await deps.accounts.revokeInvitationByOperator(request.params.invitation_id) },
      }),
    )

    app.post(
      '/operators/invitations',
      {
        config: { ...opCreate, errors: ['member_exists'] },
        schema: { body: Type.Object({ email: Email }, closed) },
      },
      async (request, reply) => {
        const created = await deps.accounts.inviteOperator({ email: request.body.email })
        reply.code(201)
        return { data: created }
      },
    )

    app.get('/operators', { config: op }, async () => ({ data: await deps.accounts.listOperators() }))

    app.get('/operators/invitations', { config: op }, async () => ({
      data: await deps.accounts.listOperatorInvitations(),
    }))

    app.delete(
      '/operators/invitations/:invitation_id',
      { config: op, schema: { params: InvitationParams } },
      async (request) => ({
        data: { invitation: await deps.accounts.revokeOperatorInvitation(request.params.invitation_id) },
      }),
    )

    // A member's or an operator's password reset link, by the account's email: shown once, it works once within the hour.
    app.post(
      '/password-resets',
      { config: opCreate, schema: { body: Type.Object({ email: Email }, closed) } },
      async (request, reply) => {
        reply.code(201)
        return { data: await deps.accounts.issuePasswordResetByEmail(request.body.email) }
      },
    )

    // Its sessions end at once; the token itself always remains.
    app.delete(
      '/operators/:operator_id',
      { config: op, schema: { params: Type.Object({ operator_id: Type.String() }) } },
      async (request) => ({ data: await deps.accounts.removeOperator(request.params.operator_id) }),
    )
  }
}
