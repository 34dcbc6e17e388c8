import Type from 'typebox'
import { ENVIRONMENTS } from '../../db/schema.ts'
import { StringEnum } from '../../http/schemas.ts'

export const ApiKeyInfo = Type.Object(
  {
    organization: Type.Object({ name: Type.String() }),
    environment: StringEnum(ENVIRONMENTS),
    scopes: Type.Array(Type.String(), {
      description: 'The key\u2019s scopes; the apiKey security scheme says what each permits.',
    }),
    key_prefix: Type.String({ description: 'Leading part of the key.' }),
    api_version: Type.String(),
  },
  { $id: 'ApiKeyInfo', title: 'ApiKeyInfo', description: 'What the service knows of the key that called.' },
)

export const PingResponse = Type.Object({ data: ApiKeyInfo })
