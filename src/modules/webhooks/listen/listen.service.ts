import { PassThrough, type Readable } from 'node:stream'
import type { Database, Listen } from '../../../db/database.ts'
import { AppError } from '../../../http/errors.ts'
import type { Clock } from '../../../lib/clock.ts'
import { newId } from '../../../lib/ids.ts'
import { EVENT_TYPES, type EventType, notifySample } from '../outbox/outbox.service.ts'
import { createEventFeed, type Sample } from './event-feed.ts'
import {
  admitSession,
  closeSession,
  countSessions,
  currentSnapshot,
  type EventCursor,
  type EventScope,
  readEvents,
  renewSessions,
  type StreamedEvent,
} from './listen.repo.ts'
import { sampleEventBody } from './sample-events.ts'

/** Open listen streams per organization, both environments and every instance together. */
export const MAX_LISTEN_STREAMS = 5
/** A session row counts this long after its instance last renewed it (a crashed instance's sessions lapse). */
export const LISTEN_LEASE_MS = 30_000
const RENEW_MS = 10_000
export const KEEPALIVE_MS = 15_000
/** A client this far behind is cut off; it resumes with Last-Event-ID. */
const MAX_UNREAD_BYTES = 1024 * 1024
const CATCH_UP_BATCH = 200
/** How long a stream ended at shutdown may take to flush before it is cut. */
const SHUTDOWN_FLUSH_MS = 1000

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

function parseLastEventId(value: string): EventCursor {
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

function parseEventFilter(value: string | undefined): EventType[] | null {
  if (value === undefined) return null
  const types = [...new Set(value.split(',').map((t) => t.trim()))]
  const unknown = types.filter((t) => !(EVENT_TYPES as readonly string[]).includes(t))
  if (unknown.length > 0 || types.length === 0) {
    throw AppError.validation(
      [
        {
          code: 'invalid_format',
          field: 'events',
          message: `Unknown event type${unknown.length > 1 ? 's' : ''} ${unknown.map((t) => `"${t}"`).join(', ')}; known: ${EVENT_TYPES.join(', ')}.`,
        },
      ],
      'The events filter names an unknown event type; nothing was opened.',
    )
  }
  return types as EventType[]
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

export interface ListenServiceDeps {
  db: Database
  listen: Listen
  clock: Clock
  /** Told of a stream or feed that failed (see also reportTo); nothing by default. */
  onError?: (err: unknown) => void
  keepaliveMs?: number
  pollMs?: number
}

/**
 * Listen sessions: server-sent event streams of an organization's events of
 * one environment, and the sample events of POST /v1/webhook-events/trigger.
 * The service only answers requests: it connects nowhere.
 */
export function createListenService(deps: ListenServiceDeps) {
  const { db } = deps
  let report = deps.onError ?? (() => {})
  const onError = (err: unknown) => report(err)
  const keepaliveMs = deps.keepaliveMs ?? KEEPALIVE_MS
  const feed = createEventFeed({
    db,
    listen: deps.listen,
    onError,
    ...(deps.pollMs ? { pollMs: deps.pollMs } : {}),
  })
  const streams = new Set<OpenStream>()
  let renewer: NodeJS.Timeout | undefined
  let closing = false

  const renew = () => {
    renewSessions(
      db,
      [...streams].map((s) => s.sessionId),
      LISTEN_LEASE_MS,
    ).catch(onError)
  }

  /** The stream after the session is recorded: subscribed, caught up from `resume`, then live. */
  async function start(
    scope: EventScope,
    sessionId: string,
    types: EventType[] | null,
    resume: EventCursor | undefined,
  ): Promise<Readable> {
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
      if (streams.size === 0) clearInterval(renewer)
      closeSession(db, sessionId)
        .catch(onError)
        .finally(() => closedResolve())
    })
    streams.add(stream)
    if (streams.size === 1) {
      renewer = setInterval(renew, RENEW_MS)
      renewer.unref()
    }

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

  return {
    /**
     * Opens a stream for the key's organization and environment, or refuses
     * before it starts: a bad filter or Last-Event-ID, or the organization's
     * sessions all taken.
     */
    async open(scope: EventScope, input: { events?: string | undefined; lastEventId?: string | undefined }) {
      const types = parseEventFilter(input.events)
      const resume = input.lastEventId === undefined ? undefined : parseLastEventId(input.lastEventId)
      if (closing) throw new AppError('service_unavailable', { message: 'The service is shutting down.' })
      const sessionId = newId()
      const session = { id: sessionId, organizationId: scope.organizationId, environment: scope.environment }
      const admitted = await db
        .transaction()
        .execute((trx) => admitSession(trx, session, MAX_LISTEN_STREAMS, LISTEN_LEASE_MS))
      if (!admitted) {
        throw new AppError('listen_limit_reached', {
          message: `This organization already has ${MAX_LISTEN_STREAMS} open listen sessions (both environments); close one first.`,
        })
      }
      try {
        return await start(scope, sessionId, types, resume)
      } catch (err) {
        await closeSession(db, sessionId).catch(onError)
        throw err
      }
    },

    /** Sends a sample event to the organization's open test sessions on every instance; stores nothing. */
    async trigger(scope: EventScope, type: EventType) {
      if (scope.environment !== 'test') {
        throw new AppError('test_key_required', {
          message:
            'Sample events go to test listen sessions only; use a test API key. A live key’s session receives the live events of real orders.',
        })
      }
      const body = sampleEventBody(type, deps.clock.now())
      const sample: Sample = { organization_id: scope.organizationId, type, body }
      await notifySample(db, JSON.stringify(sample))
      return { type, sessions: await countSessions(db, scope) }
    },

    /** Where failures are told from now on (the app's log). */
    reportTo(next: (err: unknown) => void): void {
      report = next
    },

    /** Streams open on this instance. */
    openCount: () => streams.size,

    /** Ends every stream (cleanly, or cut after a moment if its client does not read) and stops listening. */
    async close() {
      closing = true
      const open = [...streams]
      for (const s of open) s.out.end()
      await Promise.all(
        open.map(async (s) => {
          const flushed = await Promise.race([
            s.closed.then(() => true),
            new Promise<boolean>((resolve) => setTimeout(resolve, SHUTDOWN_FLUSH_MS, false).unref()),
          ])
          if (!flushed) s.out.destroy()
          await s.closed
        }),
      )
      clearInterval(renewer)
      await feed.stop()
    },
  }
}

export type ListenService = ReturnType<typeof createListenService>
