import { AppError } from '../../http/errors.ts'
import { isUuid } from '../../lib/ids.ts'
import { isStorableInstant } from '../../lib/instants.ts'

export interface Position {
  updatedAt: Date
  id: string
}

/** Opaque to clients: base64url of the last row's (updated_at, id). */
export function encodeCursor(position: Position): string {
  return Buffer.from(`${position.updatedAt.toISOString()}|${position.id}`, 'utf8').toString('base64url')
}

/** Only what encodeCursor wrote is accepted: every part then is something the database takes. */
export function decodeCursor(cursor: string): Position {
  const [iso, id, extra] = Buffer.from(cursor, 'base64url').toString('utf8').split('|')
  const updatedAt = new Date(iso ?? '')
  const written = isStorableInstant(updatedAt) && updatedAt.toISOString() === iso
  if (!written || !id || extra !== undefined || !isUuid(id)) {
    throw AppError.validation([
      {
        code: 'invalid_format',
        field: 'cursor',
        message: 'cursor must be a next_cursor value from a previous page',
      },
    ])
  }
  return { updatedAt, id }
}
