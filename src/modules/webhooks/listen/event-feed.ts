import type { Database, Listen } from '../../../db/database.ts'
import type { Environment } from '../../../db/schema.ts'
import { SAMPLES_CHANNEL } from '../outbox/outbox.service.ts'
import {
  currentSnapshot,
  type EventCursor,
  type EventScope,
  eventsHeldBack,
  NIL_UUID,
  readEvents,
  type StreamedEvent,
} from './listen.repo.ts'

export interface Sample {
  organization_id: string
  type: string
  body: string
}

/** Someone (a listen stream) that wants the events of one organization and environment. */
export interface FeedSubscriber extends EventScope {
  event(e: StreamedEvent): void
  sample(s: Sample): void
}

export interface EventFeedOptions {
  db: Database
  listen: Listen
  onError: (err: unknown) => void
  /** Reads new events this often while a stream is open. */
  pollMs?: number
  batch?: number
}

export interface EventFeed {
  /** Resolves once the feed listens: every event committed from then on reaches the subscriber. */
  subscribe(s: FeedSubscriber): Promise<() => void>
  stop(): Promise<void>
}

const FIRST_RETRY_MS = 20

/**
 * One reader per instance of the events every open stream of the instance
 * wants: every `pollMs` (100 ms) while a stream is open it reads committed
 * events in commit-safe order past its cursor (one query for all streams) and
 * hands each to the streams of its organization and environment. A tick, not
 * a NOTIFY per event: a notifying transaction takes a lock every commit of the
 * database shares, which made concurrent orders commit one at a time.
 */
export function createEventFeed(options: EventFeedOptions): EventFeed {
  const { db, listen } = options
  const pollMs = options.pollMs ?? 100
  const batch = options.batch ?? 500
  const subscribers = new Set<FeedSubscriber>()
  let running: Promise<() => Promise<void>> | undefined
  // A restart waits for the previous stop (the embedded database has one session to LISTEN on).
  let stopping: Promise<void> = Promise.resolve()
  let cursor: EventCursor = { tx: '0', id: NIL_UUID }
  let reading = false
  let again = false
  let retryMs = FIRST_RETRY_MS
  let timer: NodeJS.Timeout | undefined

  const schedule = (ms: number) => {
    clearTimeout(timer)
    timer = setTimeout(wake, ms)
    timer.unref()
  }

  async function read(): Promise<boolean> {
    for (;;) {
      const rows = await readEvents(db, cursor, batch)
      for (const e of rows) {
        for (const s of subscribers) {
          if (s.organizationId === e.organization_id && s.environment === e.environment) s.event(e)
        }
      }
      if (rows.length > 0) cursor = { tx: rows.at(-1)!.tx, id: rows.at(-1)!.id }
      if (rows.length < batch) return eventsHeldBack(db, cursor)
    }
  }

  function wake(): void {
    if (!running) return
    if (reading) {
      again = true
      return
    }
    reading = true
    again = false
    read()
      .then((held) => {
        // An event waits for an older transaction to end: look again soon, then less often.
        if (held) {
          schedule(retryMs)
          retryMs = Math.min(retryMs * 2, pollMs)
        } else {
          retryMs = FIRST_RETRY_MS
          schedule(pollMs)
        }
      })
      .catch((err) => {
        options.onError(err)
        schedule(pollMs)
      })
      .finally(() => {
        reading = false
        if (again) wake()
      })
  }

  const onSample = (payload: string) => {
    if (payload === '') return
    let sample: Sample
    try {
      sample = JSON.parse(payload) as Sample
    } catch {
      return
    }
    const test: Environment = 'test'
    for (const s of subscribers) {
      if (s.organizationId === sample.organization_id && s.environment === test) s.sample(sample)
    }
  }

  async function start(): Promise<() => Promise<void>> {
    await stopping
    const unlistenSamples = await listen(SAMPLES_CHANNEL, onSample)
    // Listening now: start at the oldest transaction still running, so none is missed.
    cursor = { tx: (await currentSnapshot(db)).split(':')[0]!, id: NIL_UUID }
    return async () => {
      clearTimeout(timer)
      await unlistenSamples()
    }
  }

  function stopRunning(): Promise<void> {
    const r = running
    running = undefined
    clearTimeout(timer)
    if (r) stopping = stopping.then(async () => (await r.catch(() => async () => {}))())
    return stopping
  }

  return {
    async subscribe(s) {
      subscribers.add(s)
      try {
        if (!running) {
          running = start()
          running.then(() => schedule(pollMs)).catch(() => {})
        }
        await running
      } catch (err) {
        subscribers.delete(s)
        running = undefined
        throw err
      }
      return () => {
        subscribers.delete(s)
        if (subscribers.size === 0) stopRunning().catch(options.onError)
      }
    },
    stop: stopRunning,
  }
}
