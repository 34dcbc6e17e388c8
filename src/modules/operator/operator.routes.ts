import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import Type from 'typebox'
import { ENVIRONMENTS } from '../../db/schema.ts'
import { ORDER_BODY_LIMIT } from '../../http/json-body.ts'
import { SCOPES } from '../../http/principal.ts'
import { StringEnum, Text, Timestamp } from '../../http/schemas.ts'
import { Email, InvitationParams, OperatorInviteBody } from '../accounts/accounts.dashboard.schemas.ts'
import type { AccountService } from '../accounts/accounts.service.ts'
import { OPERATOR_TOKEN_ACTOR } from '../audit/audit.service.ts'
import type { ApiKeyService } from '../auth/api-keys.service.ts'
import { OrderRequest } from '../orders/orders.schemas.ts'
import type { OrderService } from '../orders/orders.service.ts'
import type { OrganizationService } from '../organizations/organizations.service.ts'
import type { ProductService } from '../products/products.service.ts'

const closed = { additionalProperties: false } as const
const OrgParams = Type.Object({ org_id: Type.String() })

export interface OperatorDeps {
  organizations: OrganizationService
  apiKeys: ApiKeyService
  products: ProductService
  orders: OrderService
  accounts: AccountService
}

/**
 * /admin/v1: the operator API that plays the dashboard's part. Same envelope and
 * error shape as the public API; authenticated with the operator token.
 */
export function operatorRoutes(deps: OperatorDeps) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
    const op = { auth: 'operator' as const }
    // Every JSON body here creates something: a refused one says nothing was created.
    const opCreate = { auth: 'operator' as const, jsonBody: true, creates: true }

    app.post(
      '/organizations',
      {
        config: opCreate,
        schema: { body: Type.Object({ name: Text({ minLength: 1, maxLength: 255 }) }, closed) },
      },
      async (request, reply) => {
        reply.code(201)
        return {
          data: { organization: await deps.organizations.create(request.body.name, OPERATOR_TOKEN_ACTOR) },
        }
      },
    )

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

    app.get('/organizations', { config: op }, async () => ({ data: await deps.organizations.list() }))

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

    // Its sessions end at once; the token itself always remains.
    app.delete(
      '/operators/:operator_id',
      { config: op, schema: { params: Type.Object({ operator_id: Type.String() }) } },
      async (request) => ({ data: await deps.accounts.removeOperator(request.params.operator_id) }),
    )

    app.post(
      '/organizations/:org_id/api-keys',
      {
        config: opCreate,
        schema: {
          params: OrgParams,
          body: Type.Object(
            {
              environment: StringEnum(ENVIRONMENTS),
              scopes: Type.Array(StringEnum(SCOPES), { maxItems: SCOPES.length * 2 }),
              name: Type.Optional(Type.Union([Text({ maxLength: 255 }), Type.Null()])),
              expires_at: Type.Optional(Type.Union([Timestamp, Type.Null()])),
            },
            closed,
          ),
        },
      },
      async (request, reply) => {
        const { environment, scopes, name, expires_at } = request.body
        const created = await deps.apiKeys.create(
          {
            organizationId: request.params.org_id,
            environment,
            scopes,
            name,
            expiresAt: expires_at ? new Date(expires_at) : null,
          },
          OPERATOR_TOKEN_ACTOR,
        )
        reply.code(201)
        return { data: { api_key: created.apiKey, key: created.key } }
      },
    )

    app.get(
      '/organizations/:org_id/api-keys',
      { config: op, schema: { params: OrgParams } },
      async (request) => ({ data: await deps.apiKeys.list(request.params.org_id) }),
    )

    app.delete(
      '/api-keys/:key_id',
      { config: op, schema: { params: Type.Object({ key_id: Type.String() }) } },
      async (request) => {
        const key = await deps.apiKeys.revoke(request.params.key_id, { actor: OPERATOR_TOKEN_ACTOR })
        return { data: { id: key.id, revoked_at: key.revoked_at } }
      },
    )

    app.post(
      '/organizations/:org_id/products',
      {
        config: opCreate,
        schema: {
          params: OrgParams,
          body: Type.Object(
            { sku: Text({ minLength: 1, maxLength: 255 }), name: Text({ minLength: 1, maxLength: 255 }) },
            closed,
          ),
        },
      },
      async (request, reply) => {
        const { product } = await deps.products.create(
          request.params.org_id,
          request.body,
          OPERATOR_TOKEN_ACTOR,
        )
        reply.code(201)
        return { data: { product } }
      },
    )

    app.get(
      '/organizations/:org_id/products',
      { config: op, schema: { params: OrgParams } },
      async (request) => ({ data: await deps.products.list(request.params.org_id) }),
    )

    app.get(
      '/organizations/:org_id/orders',
      {
        config: op,
        schema: {
          params: OrgParams,
          querystring: Type.Object(
            {
              environment: Type.Optional(StringEnum(ENVIRONMENTS)),
              limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
              cursor: Type.Optional(Type.String({ maxLength: 512 })),
            },
            closed,
          ),
        },
      },
      async (request) => {
        const q = request.query
        return deps.orders.listForOrganization({
          organizationId: request.params.org_id,
          environment: q.environment,
          limit: q.limit ?? 50,
          cursor: q.cursor,
        })
      },
    )

    app.get(
      '/orders/:order_id',
      { config: op, schema: { params: Type.Object({ order_id: Type.String() }) } },
      async (request) => ({ data: { order: await deps.orders.getOperatorView(request.params.order_id) } }),
    )

    app.get(
      '/orders/:order_id/files/:upload_id',
      { config: op, schema: { params: Type.Object({ order_id: Type.String(), upload_id: Type.String() }) } },
      async (request, reply) => {
        const file = await deps.orders.openFile(request.params.order_id, request.params.upload_id)
        // Served as a download of the detected type, never rendered inline: a
        // sanitized SVG is still not content to run in the operator's origin.
        return reply
          .header('content-type', file.contentType)
          .header('content-length', String(file.size))
          .header('content-disposition', `attachment; filename="${file.filename}"`)
          .header('x-content-type-options', 'nosniff')
          .header('content-security-policy', "default-src 'none'; sandbox")
          .send(file.stream)
      },
    )

    app.post(
      '/organizations/:org_id/shop-orders',
      { config: opCreate, bodyLimit: ORDER_BODY_LIMIT, schema: { params: OrgParams, body: OrderRequest } },
      async (request, reply) => {
        const result = await deps.orders.createShopOrder(
          request.params.org_id,
          request.body,
          OPERATOR_TOKEN_ACTOR,
        )
        reply.code(result.created ? 201 : 200)
        return { data: { order: result.order, warnings: result.warnings } }
      },
    )

    app.get(
      '/organizations/:org_id/stats',
      { config: op, schema: { params: OrgParams } },
      async (request) => ({ data: await deps.orders.stats(request.params.org_id) }),
    )
  }
}
