import Type, { type Static } from 'typebox'
import { ENVIRONMENTS } from '../../db/schema.ts'
import { SCOPE_LINES, SCOPES } from '../../http/principal.ts'
import { StringEnum, Text, Timestamp, Uuid } from '../../http/schemas.ts'

const closed = { additionalProperties: false } as const
const NullableTimestamp = Type.Union([Timestamp, Type.Null()])

export const Environment = StringEnum(ENVIRONMENTS, { description: 'test or live' })
export const Scope = StringEnum(SCOPES, { description: SCOPE_LINES.join(' ') })

/** An API key as the dashboard lists it: never its plaintext or hash. */
export const ApiKey = Type.Object({
  id: Uuid,
  key_prefix: Type.String({ description: 'The visible start of the key, e.g. svc_live_AbCd1234.' }),
  name: Type.Union([Type.String(), Type.Null()]),
  environment: Environment,
  scopes: Type.Array(Type.String()),
  created_by: Type.String({ description: "A member's email, or operator." }),
  created_at: Timestamp,
  last_used_at: Type.Union([Timestamp, Type.Null()], {
    description: 'The first use in the minute of the latest use: at most a minute behind. Null: never used.',
  }),
  expires_at: NullableTimestamp,
  revoked_at: NullableTimestamp,
})
export type ApiKey = Static<typeof ApiKey>

export const ApiKeyList = Type.Object({ data: Type.Array(ApiKey) })

export const CreateApiKeyBody = Type.Object(
  {
    environment: Environment,
    scopes: Type.Array(Scope, { minItems: 1, maxItems: SCOPES.length * 2 }),
    name: Type.Optional(Type.Union([Text({ maxLength: 255 }), Type.Null()])),
    expires_at: Type.Optional(Type.Union([Timestamp, Type.Null()], { description: 'Null: never expires.' })),
  },
  closed,
)
export type CreateApiKeyBody = Static<typeof CreateApiKeyBody>

export const ApiKeyCreated = Type.Object({
  data: Type.Object({
    api_key: ApiKey,
    key: Type.String({ description: 'The key itself: shown in this answer only, never again.' }),
  }),
})
export type ApiKeyCreated = Static<typeof ApiKeyCreated>

export const ApiKeyAnswer = Type.Object({ data: Type.Object({ api_key: ApiKey }) })
export const ApiKeyParams = Type.Object({ key_id: Type.String() })
