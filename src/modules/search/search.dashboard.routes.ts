import Type from 'typebox'
import { ctx, DASHBOARD_TAG, type DashboardArea, operatorOnly, viewer } from '../../dashboard/route-config.ts'
import { StringEnum, Text, Uuid } from '../../http/schemas.ts'
import type { RequestLogService } from '../requests/requests.service.ts'
import type { SearchService } from './search.service.ts'

const Environment = StringEnum(['live', 'test'] as const)
const SearchQuery = Type.Object(
  {
    q: Text({
      minLength: 2,
      maxLength: 200,
      description:
        'The beginning of an external order id, customer email or name, an order id, a key prefix; or part of an endpoint URL.',
    }),
  },
  { additionalProperties: false },
)
const SearchAnswer = Type.Object({
  data: Type.Object({
    orders: Type.Array(
      Type.Object({
        id: Uuid,
        external_order_id: Type.String(),
        environment: Environment,
        status: Type.String(),
        customer_name: Type.String(),
        customer_email: Type.Union([Type.String(), Type.Null()]),
      }),
    ),
    webhook_endpoints: Type.Array(
      Type.Object({ id: Uuid, url: Type.String(), environment: Environment, description: Type.String() }),
    ),
    api_keys: Type.Array(
      Type.Object({
        id: Uuid,
        key_prefix: Type.String(),
        environment: Environment,
        name: Type.Union([Type.String(), Type.Null()]),
        revoked: Type.Boolean(),
      }),
    ),
    requests: Type.Array(
      Type.Object({
        id: Uuid,
        request_id: Type.String(),
        environment: Environment,
        method: Type.String(),
        path: Type.String(),
        status: Type.Integer(),
        created_at: Type.String({ format: 'date-time' }),
      }),
      { description: 'Requests of the request log answered with this X-Request-Id (the whole id).' },
    ),
  }),
})

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()])
const OfOrganization = { organization_id: Uuid, organization_name: Type.String() }
const ConsoleSearchAnswer = Type.Object({
  data: Type.Object({
    organizations: Type.Array(Type.Object({ id: Uuid, name: Type.String() })),
    orders: Type.Array(
      Type.Object({
        id: Uuid,
        ...OfOrganization,
        external_order_id: Type.String(),
        environment: Environment,
        status: Type.String(),
        customer_name: Type.String(),
        customer_email: Nullable(Type.String()),
      }),
    ),
    production_orders: Type.Array(
      Type.Object({
        id: Uuid,
        status: Type.String(),
        external_order_id: Type.String(),
        organization_name: Type.String(),
      }),
    ),
    webhook_endpoints: Type.Array(
      Type.Object({ id: Uuid, url: Type.String(), environment: Environment, ...OfOrganization }),
    ),
    api_keys: Type.Array(
      Type.Object({
        id: Uuid,
        key_prefix: Type.String(),
        environment: Environment,
        revoked: Type.Boolean(),
        ...OfOrganization,
      }),
    ),
  }),
})

/** The header's search box: orders, webhook endpoints, API keys and requests of the member's organization. */
export const searchDashboardRoutes: DashboardArea<{
  search: SearchService
  requests: Pick<RequestLogService, 'byRequestId'>
}> = (app, { search, requests }) => {
  app.get(
    '/search',
    {
      config: { ...viewer, errors: ['validation_failed'] },
      schema: {
        operationId: 'dashboardSearch',
        tags: [DASHBOARD_TAG],
        summary:
          'Find an order, a webhook endpoint, an API key or a request by its X-Request-Id; at most five of each (orders: five per environment)',
        querystring: SearchQuery,
        response: { 200: SearchAnswer },
      },
    },
    async (request) => {
      const organizationId = ctx(request).member.organization_id
      const [found, lines] = await Promise.all([
        search.search(organizationId, request.query.q),
        requests.byRequestId(organizationId, request.query.q.trim()),
      ])
      return {
        data: {
          ...found,
          requests: lines.map(({ id, request_id, environment, method, path, status, created_at }) => ({
            id,
            request_id,
            environment,
            method,
            path,
            status,
            created_at,
          })),
        },
      }
    },
  )

  app.get(
    '/operator/search',
    {
      config: { ...operatorOnly, errors: ['validation_failed'] },
      schema: {
        operationId: 'dashboardOperatorSearch',
        tags: [DASHBOARD_TAG],
        summary:
          'Find, across organizations, an organization, an order, a production order, a webhook endpoint or an API key; at most five of each',
        querystring: SearchQuery,
        response: { 200: ConsoleSearchAnswer },
      },
    },
    async (request) => ({ data: await search.searchEverywhere(request.query.q) }),
  )
}
