import type { Readable } from 'node:stream'
import Type from 'typebox'
import { Timestamp, Uuid } from '../../http/schemas.ts'

/** The order page's preflight (GET .../orders/{order_id}/preflight) and its files' thumbnails. */

export const PreflightParams = Type.Object({ order_id: Type.String({ maxLength: 64 }) })
export const ThumbnailParams = Type.Object({
  order_id: Type.String({ maxLength: 64 }),
  upload_id: Type.String({ maxLength: 64 }),
})

const Status = Type.String({
  enum: ['ok', 'warning', 'problem', 'unmeasurable', 'pending', 'not_checked'],
  description:
    'ok, warning or problem once checked; unmeasurable when the file could not be measured; pending while it is being measured; not_checked when nothing asks anything of it.',
})

const Check = Type.Object({
  check: Type.String({
    description: 'resolution, shape, size, colour, transparency, pages, bleed, fonts or frames.',
  }),
  verdict: Type.String({ enum: ['ok', 'warning', 'problem'] }),
  sentence: Type.String({ description: 'What was found and, unless ok, what to do.' }),
})

const PreflightFile = Type.Object({
  upload_id: Uuid,
  role: Type.Union([Type.String(), Type.Null()]),
  status: Status,
  reason: Type.Union([Type.String(), Type.Null()], {
    description: 'Why it was not checked, could not be measured, or is pending.',
  }),
  spec: Type.Union([Type.String(), Type.Null()], {
    description: 'The print spec it was checked against, in a line.',
  }),
  checks: Type.Array(Check),
  facts: Type.Array(Type.String(), { description: 'What was measured of the file, a fact a line.' }),
  measured_at: Type.Union([Timestamp, Type.Null()]),
  thumbnail: Type.Boolean({
    description: 'Whether a thumbnail was made (GET .../files/{upload_id}/thumbnail).',
  }),
})

const PreflightItem = Type.Object({
  item_id: Uuid,
  status: Status,
  files: Type.Array(PreflightFile),
})

export const PreflightAnswer = Type.Object({
  data: Type.Object({
    order_id: Uuid,
    status: Type.String({
      enum: ['ok', 'warning', 'problem', 'pending', 'not_checked'],
      description:
        'The worst of its files (a file that could not be measured counts as a problem); pending while any is being measured.',
    }),
    problems: Type.Integer(),
    warnings: Type.Integer(),
    items: Type.Array(PreflightItem),
  }),
})

export const Thumbnail = {
  description: 'A WebP picture of the file, at most 320 px on its longer side.',
  content: {
    'image/webp': {
      // A stream of bytes: not serialized, so its TypeScript type is the stream's.
      schema: Type.Unsafe<Readable>({ type: 'string', format: 'binary' }),
    },
  },
}
