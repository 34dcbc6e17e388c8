import { PassThrough, type Readable } from 'node:stream'
import type { Database } from '../../../db/database.ts'
import { AppError } from '../../../http/errors.ts'
import type { EventType } from '../outbox/outbox.service.ts'
import type { EventFeed, Sample } from './event-feed.ts'
import {
  closeSession,
  currentSnapshot,
  type EventCursor,
  type EventScope,
  readEvents,
  renewSessions,
  type StreamedEvent,
} from './listen.repo.ts'

/*
 * One listen stream (listen.service.ts opens them): its ids, its frames, its
 * catch-up from Last-Event-ID, then the live events of the feed; and the
 * streams open on this instance, whose session rows are renewed.
 */

/** A session row counts this long after its instance last renewed it (a crashed instance's sessions lapse). */
export const LISTEN_LEASE_MS = 30_000
const RENEW_MS = 10_000
/** A client this far behind is cut off; it resumes with Last-Event-ID. */
const MAX_UNREAD_BYTES = 1024 * 1024
const CATCH_UP_BATCH = 200

/** A transaction snapshot (`xmin:xmax:xip,...`): which transactions had committed when it was taken. */
interface Snapshot {
  xmin: bigint
  xmax: bigint
  running: Set<bigint>
}

function parseSnapshot(text: string): Snapshot {
  const [xmin, xmax, xip] = text.split(':')
  return {
    xmin: BigInt(xmin!),
    xmax: BigInt(xmax!),
    running: new Set(xip ? xip.split(',').map(BigInt) : []),
  }
}

const committedIn = (tx: bigint, s: Snapshot) => tx < s.xmin || (tx < s.xmax && !s.running.has(tx))

function compare(a: EventCursor, b: EventCursor): number {
  const ta = BigInt(a.tx)
  const tb = BigInt(b.tx)
  if (ta !== tb) return ta < tb ? -1 : 1
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}

const CURSOR = /^(\d{1,20})\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/

/** The SSE id of an event: its place in the commit-safe order, opaque to clients. */
export const eventCursorId = (e: EventCursor) => `${e.tx}.${e.id}`

/** The cursor a Last-Event-ID header names, or a validation error. */
export function parseLastEventId(value: string): EventCursor {
  const match = CURSOR.exec(value)
  if (!match) {
    throw AppError.validation(
      [
        {
          code: 'invalid_format',
          field: 'Last-Event-ID',
          message: 'Last-Event-ID must be an id this stream sent (the `id:` line of an event).',
        },
      ],
      'The Last-Event-ID header is not an event id of this stream; nothing was opened.',
    )
  }
  return { tx: match[1]!, id: match[2]! }
}

/** An SSE frame's data lines (a body is one line; the spec joins several with \n anyway). */
const dataLines = (body: string) =>
  body
    .split(/\r\n|\r|\n/)
    .map((line) => `data: ${line}\n`)
    .join('')

interface OpenStream {
  out: PassThrough
  sessionId: string
  closed: Promise<void>
}

/** The streams open on this instance; while there are any, their sessions are renewed every RENEW_MS. */
export function createOpenStreams(db: Database, onError: (err: unknown) => void) {
  const streams = new Set<OpenStream>()
  let renewer: NodeJS.Timeout | undefined

  const renew = () => {
    renewSessions(
      db,
      [...streams].map((s) => s.sessionId),
      LISTEN_LEASE_MS,
    ).catch(onError)
  }

  return {
    add(stream: OpenStream) {
      streams.add(stream)
      if (streams.size === 1) {
        renewer = setInterval(renew, RENEW_MS)
        renewer.unref()
      }
    },
    delete(stream: OpenStream) {
      streams.delete(stream)
      if (streams.size === 0) clearInterval(renewer)
    },
    get size() {
      return streams.size
    },
    list: () => [...streams],
    stopRenewing: () => clearInterval(renewer),
  }
}

export type OpenStreams = ReturnType<typeof createOpenStreams>

/** What a stream uses of its service. */
export interface StreamParts {
  db: Database
  feed: EventFeed
  streams: OpenStreams
  keepaliveMs: number
  onError: (err: unknown) => void
}

/** The stream after the session is recorded: subscribed, caught up from `resume`, then live. */
export async function startStream(
  parts: StreamParts,
  scope: EventScope,
  sessionId: string,
  types: EventType[] | null,
  resume: EventCursor | undefined,
): Promise<Readable> {
  const { db, feed, streams, keepaliveMs, onError } = parts
  const out = new PassThrough()
  const wanted = types ? new Set<string>(types) : null
  let cursor = resume
  let since: Snapshot | undefined
  // Events the feed hands over while the stream catches up wait here, in order.
  let waiting: StreamedEvent[] | undefined = []

  const write = (frame: string) => {
    if (out.writableEnded || out.destroyed) return
    out.write(frame)
    if (out.writableLength > MAX_UNREAD_BYTES) out.end()
  }
  const send = (e: StreamedEvent) => {
    if (cursor && compare(e, cursor) <= 0) return
    // A stream without Last-Event-ID starts with what commits after it opened.
    if (since && committedIn(BigInt(e.tx), since)) return
    cursor = { tx: e.tx, id: e.id }
    if (wanted && !wanted.has(e.type)) return
    write(`id: ${eventCursorId(e)}\nevent: ${e.type}\n${dataLines(e.body)}\n`)
  }
  const sample = (s: Sample) => {
    if (!wanted || wanted.has(s.type)) write(`event: ${s.type}\n${dataLines(s.body)}\n`)
  }
  const unsubscribe = await feed.subscribe({
    ...scope,
    event: (e) => (waiting ? waiting.push(e) : send(e)),
    sample,
  })

  let closedResolve: () => void = () => {}
  const stream: OpenStream = {
    out,
    sessionId,
    closed: new Promise((resolve) => {
      closedResolve = resolve
    }),
  }
  const keepalive = setInterval(() => write(': keepalive\n\n'), keepaliveMs)
  keepalive.unref()
  out.once('close', () => {
    clearInterval(keepalive)
    unsubscribe()
    streams.delete(stream)
    closeSession(db, sessionId)
      .catch(onError)
      .finally(() => closedResolve())
  })
  streams.add(stream)

  try {
    if (!resume) since = parseSnapshot(await currentSnapshot(db))
  } catch (err) {
    out.destroy()
    throw err
  }
  write(`event: ready\n${dataLines(JSON.stringify({ environment: scope.environment, events: types }))}\n`)
  const catchUp = async () => {
    for (let rows: StreamedEvent[] = []; ; ) {
      rows = await readEvents(db, cursor!, CATCH_UP_BATCH, scope)
      for (const e of rows) send(e)
      if (rows.length < CATCH_UP_BATCH || out.writableEnded) return
    }
  }
  ;(resume ? catchUp() : Promise.resolve())
    .then(() => {
      const held = waiting!
      waiting = undefined
      for (const e of held) send(e)
    })
    .catch((err) => {
      // The client reconnects with its Last-Event-ID and the catch-up starts again.
      onError(err)
      out.end()
    })
  return out
}
