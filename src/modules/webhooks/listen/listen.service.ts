import type { Database, Listen } from '../../../db/database.ts'
import { AppError } from '../../../http/errors.ts'
import type { Clock } from '../../../lib/clock.ts'
import { newId } from '../../../lib/ids.ts'
import { EVENT_TYPES, type EventType, notifySample } from '../outbox/outbox.service.ts'
import { createEventFeed, type Sample } from './event-feed.ts'
import { admitSession, closeSession, countSessions, type EventScope } from './listen.repo.ts'
import { sampleEventBody } from './sample-events.ts'
import { createOpenStreams, LISTEN_LEASE_MS, parseLastEventId, startStream } from './stream.ts'

/** Open listen streams per organization, both environments and every instance together. */
export const MAX_LISTEN_STREAMS = 5
export { eventCursorId, LISTEN_LEASE_MS } from './stream.ts'
export const KEEPALIVE_MS = 15_000
/** How long a stream ended at shutdown may take to flush before it is cut. */
const SHUTDOWN_FLUSH_MS = 1000

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
  const streams = createOpenStreams(db, onError)
  let closing = false

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
        return await startStream({ db, feed, streams, keepaliveMs, onError }, scope, sessionId, types, resume)
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
      const open = streams.list()
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
      streams.stopRenewing()
      await feed.stop()
    },
  }
}

export type ListenService = ReturnType<typeof createListenService>
