import Type from 'typebox'
import { Timestamp } from '../../http/schemas.ts'

/** A change made from the order page, on the updated_at the page showed (a later change is a 409). */
export const PageRequest = Type.Object(
  { expected_updated_at: { ...Timestamp, description: 'The order\u2019s updated_at the page showed.' } },
  { additionalProperties: false },
)
