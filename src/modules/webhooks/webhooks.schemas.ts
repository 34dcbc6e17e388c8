import Type from 'typebox'
import { Timestamp } from '../../http/schemas.ts'

/**
 * What the webhook schemas of /v1 share across the sub-features (each keeps
 * its own: endpoints/endpoints.schemas.ts, deliveries/deliveries.schemas.ts;
 * the dashboard API's are beside them in *.dashboard.schemas.ts, built on
 * these: one definition of each). Schemas and constants only, as those files.
 */
export const DEFAULT_ROTATION_GRACE_S = 24 * 3600
export const MAX_ROTATION_GRACE_S = 7 * 24 * 3600

export const NullableTimestamp = Type.Union([Timestamp, Type.Null()])

/** Path parameters of one endpoint (its settings, and its replays). */
export const IdParams = Type.Object({ id: Type.String({ description: 'The endpoint\u2019s id.' }) })
