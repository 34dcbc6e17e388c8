import Type from 'typebox'
import { Environment } from '../../api-keys/api-keys.dashboard.schemas.ts'

/** The operator console's webhook endpoints of any organization. */
const closed = { additionalProperties: false } as const

export const OperatorEndpointParams = Type.Object({ endpoint_id: Type.String({ maxLength: 64 }) })

export const OrgEnvironmentQuery = Type.Object(
  { environment: Type.Optional({ ...Environment, default: 'live', description: 'live (default) or test' }) },
  closed,
)
