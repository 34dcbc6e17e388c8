import Type from 'typebox'
import { StringEnum, Timestamp, Uuid } from '../../http/schemas.ts'
import { Environment } from '../api-keys/api-keys.dashboard.schemas.ts'
import { LOGGED_METHODS, STATUS_CLASSES } from './requests.service.ts'

export const closed = { additionalProperties: false } as const
export const Nullable = <T extends ReturnType<typeof Type.String> | ReturnType<typeof Type.Integer>>(t: T) =>
  Type.Union([t, Type.Null()])

export const EnvironmentQuery = {
  environment: Type.Optional({ ...Environment, default: 'test', description: 'test (default) or live' }),
}

export const RequestsQuery = Type.Object(
  {
    ...EnvironmentQuery,
    status_class: Type.Optional(StringEnum(STATUS_CLASSES, { description: 'Only answers of this class.' })),
    error_code: Type.Optional(
      Type.String({ maxLength: 100, description: 'Only answers with this error code.' }),
    ),
    method: Type.Optional(StringEnum(LOGGED_METHODS)),
    path: Type.Optional(
      Type.String({
        maxLength: 2048,
        pattern: '^/v1',
        description: 'Only paths starting with this, e.g. /v1/orders (its query string included).',
      }),
    ),
    key_id: Type.Optional({ ...Uuid, description: 'Only requests made with this API key.' }),
    request_id: Type.Optional(
      Type.String({ maxLength: 128, description: 'The X-Request-Id the answer carried.' }),
    ),
    order_id: Type.Optional(
      Type.String({
        maxLength: 255,
        description:
          'The POST /v1/orders requests of this order: the one that created it (201) and identical repeats (200).',
      }),
    ),
    created_since: Type.Optional({
      ...Timestamp,
      description: 'Inclusive: requests that arrived at or after it.',
    }),
    created_until: Type.Optional({
      ...Timestamp,
      description: 'Exclusive: requests that arrived before it.',
    }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
    cursor: Type.Optional(Type.String({ maxLength: 512, description: 'next_cursor of the previous page.' })),
  },
  closed,
)

export const RequestLine = Type.Object({
  id: Uuid,
  created_at: { ...Timestamp, description: 'When the request arrived.' },
  environment: Environment,
  key_id: Uuid,
  key_prefix: Type.String({ description: 'The start of the key, as the API keys page shows it.' }),
  method: Type.String(),
  path: Type.String({ description: 'The path and query string; signatures and secrets replaced.' }),
  status: Type.Integer(),
  error_code: Nullable(Type.String()),
  duration_ms: Type.Number(),
  request_id: Type.String({ description: 'The X-Request-Id of the answer.' }),
  order_id: Nullable(Type.String({ description: 'The order a POST /v1/orders created or repeated.' })),
  trace_id: Nullable(
    Type.String({
      description: 'The request’s trace id while traces are on (docs/operations.md); else null.',
    }),
  ),
})

export const RequestDetail = Type.Object({
  ...RequestLine.properties,
  content_type: Nullable(Type.String()),
  request_body: Nullable(
    Type.String({
      description:
        'The body as sent (its first 16 KB, secrets replaced): kept for answers of 400 and above and for successful writes; null for viewers.',
    }),
  ),
  request_body_bytes: Nullable(Type.Integer({ description: 'The size of the whole body.' })),
  request_body_truncated: Type.Boolean(),
  response_body: Nullable(
    Type.String({ description: 'The whole error answer (400 and above); null for viewers.' }),
  ),
  bodies_hidden: Type.Boolean({
    description: 'true for viewers: bodies are shown to owners and developers.',
  }),
  curl: Type.String({
    description: 'A curl command repeating the request, the key read from $SERVICE_API_KEY.',
  }),
})

export const RequestsPage = Type.Object({
  data: Type.Array(RequestLine),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'null on the last page.' }),
})
