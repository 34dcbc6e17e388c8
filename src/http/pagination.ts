import { isUuid } from '../lib/ids.ts'
import { isStorableInstant } from '../lib/instants.ts'
import { AppError } from './errors.ts'

/**
 * Keyset pagination, as every list of the service pages: a page is fetched
 * with one row more than it shows (so it knows whether there is a next page),
 * and `next_cursor` is the position of the last row shown in the list's
 * order, opaque to clients.
 */

/** Where a list stopped: the ordering instant of its last row, and the row's id. */
export interface Position {
  at: Date
  id: string
}

export interface Page<View> {
  data: View[]
  next_cursor: string | null
}

/** What a bad cursor gets: 422 validation_failed naming `cursor`. */
export function badCursor(message = 'cursor must be a next_cursor value from a previous page'): AppError {
  return AppError.validation([{ code: 'invalid_format', field: 'cursor', message }])
}

/**
 * A cursor format: base64url of `<prefix><ISO instant>|<uuid>`. Decoding
 * accepts only what encoding wrote, so every part is something the database
 * takes.
 */
export function cursorCodec(prefix = '') {
  return {
    encode(position: Position): string {
      return Buffer.from(`${prefix}${position.at.toISOString()}|${position.id}`, 'utf8').toString('base64url')
    },
    decode(cursor: string): Position {
      const text = Buffer.from(cursor, 'base64url').toString('utf8')
      const [iso, id, extra] = text.slice(prefix.length).split('|')
      const at = new Date(iso ?? '')
      const written =
        text.startsWith(prefix) &&
        extra === undefined &&
        isStorableInstant(at) &&
        at.toISOString() === iso &&
        isUuid(id ?? '')
      if (!written) throw badCursor()
      return { at, id: id! }
    },
  }
}

/**
 * The page of `rows` (fetched with limit + 1): at most `limit` shown (fewer
 * when `shown` cuts them, as a byte budget does), and the cursor of the last
 * one when rows remain.
 */
export function keysetPage<Row, View>(
  rows: Row[],
  limit: number,
  options: { view: (row: Row) => View; cursor: (row: Row) => string; shown?: (rows: Row[]) => Row[] },
): Page<View> {
  const first = rows.slice(0, limit)
  const shown = options.shown ? options.shown(first) : first
  const last = shown.at(-1)
  return {
    data: shown.map(options.view),
    next_cursor: rows.length > shown.length && last ? options.cursor(last) : null,
  }
}
