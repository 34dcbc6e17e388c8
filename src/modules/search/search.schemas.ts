import Type from 'typebox'
import { StringEnum, Text, Uuid } from '../../http/schemas.ts'

export const Environment = StringEnum(['live', 'test'] as const)
export const SearchQuery = Type.Object(
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
export const SearchAnswer = Type.Object({
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

export const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()])
export const OfOrganization = { organization_id: Uuid, organization_name: Type.String() }
export const ConsoleSearchAnswer = Type.Object({
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
