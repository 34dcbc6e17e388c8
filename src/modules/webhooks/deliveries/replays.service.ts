import type { Database } from '../../../db/database.ts'
import type { WebhookEndpointRow, WebhookReplayRow } from '../../../db/schema.ts'
import { AppError } from '../../../http/errors.ts'
import { newId } from '../../../lib/ids.ts'
import { notifyReplays } from '../outbox/outbox.service.ts'
import {
  countMatching,
  insertReplay,
  latestReplay,
  type ReplaySelection,
  runningReplayOf,
  settleReplayTotal,
} from './replays.repo.ts'

/** Events one replay sends at most. */
export const MAX_REPLAY_EVENTS = 10_000

export interface ReplayRequest {
  since: string
  until?: string | undefined
  event_types?: string[] | undefined
  only_failed?: boolean | undefined
}

const iso = (d: Date | null) => d?.toISOString() ?? null

export function replayView(row: WebhookReplayRow) {
  return {
    id: row.id,
    endpoint_id: row.endpoint_id,
    status: row.status,
    since: row.since.toISOString(),
    until: iso(row.until),
    event_types: row.event_types,
    only_failed: row.only_failed,
    total: row.total,
    queued: row.queued,
    created_at: row.created_at.toISOString(),
    finished_at: iso(row.finished_at),
  }
}

const inProgress = () =>
  new AppError('replay_in_progress', {
    message: 'A replay of this endpoint is still running; wait until its status is no longer running.',
  })

/** A unique violation: another request started a replay of the endpoint meanwhile. */
const isUniqueViolation = (err: unknown) => (err as { code?: unknown } | null)?.code === '23505'

/** The events a replay of the endpoint would choose; refuses a disabled endpoint and an empty window. */
function selectionOf(endpoint: WebhookEndpointRow, input: ReplayRequest): ReplaySelection {
  if (!endpoint.is_active) {
    throw AppError.validation(
      [{ code: 'invalid_format', field: 'id', message: 'The endpoint is disabled; register a new one.' }],
      'The endpoint is disabled and cannot receive a replay.',
    )
  }
  const selection: ReplaySelection = {
    since: new Date(input.since),
    until: input.until === undefined ? null : new Date(input.until),
    eventTypes: input.event_types ?? null,
    onlyFailed: input.only_failed ?? false,
  }
  if (selection.until && selection.until <= selection.since) {
    throw AppError.validation([
      { code: 'invalid_format', field: 'until', message: 'until must be later than since.' },
    ])
  }
  return selection
}

/**
 * How many events a replay with this input would send now, without starting
 * it, so a person sees the count before deciding. Refuses what requestReplay
 * refuses for the window; the cap is reported, not enforced.
 */
export async function previewReplay(db: Database, endpoint: WebhookEndpointRow, input: ReplayRequest) {
  const matched = await countMatching(db, endpoint, selectionOf(endpoint, input))
  return { matched, limit: MAX_REPLAY_EVENTS, running: await runningReplayOf(db, endpoint.id) }
}

/**
 * Chooses the events of a replay of an active endpoint and leaves it running
 * for the workers' feeders (replay-feeder.ts); nothing is queued here. Bad
 * windows, a running replay and too many events are refused with nothing
 * stored.
 */
export async function requestReplay(
  db: Database,
  endpoint: WebhookEndpointRow,
  input: ReplayRequest,
  now: Date,
  /** Also written in the replay's transaction (the dashboard's audit entry). */
  alongside?: (trx: Database, row: WebhookReplayRow) => Promise<void>,
): Promise<WebhookReplayRow> {
  const selection = selectionOf(endpoint, input)
  const id = newId()
  try {
    return await db.transaction().execute(async (trx) => {
      if (await runningReplayOf(trx, endpoint.id)) throw inProgress()
      const chosen = await insertReplay(trx, endpoint, { id, created_at: now }, selection, MAX_REPLAY_EVENTS)
      if (chosen > MAX_REPLAY_EVENTS) {
        const matched = await countMatching(trx, endpoint, selection)
        const message = `${matched} events match; a replay sends at most ${MAX_REPLAY_EVENTS}: narrow the window (since, until, event_types).`
        throw AppError.validation([{ code: 'too_many', field: 'since', message }], message)
      }
      const row = await settleReplayTotal(trx, id, chosen, now)
      if (chosen > 0) await notifyReplays(trx)
      await alongside?.(trx, row)
      return row
    })
  } catch (err) {
    if (isUniqueViolation(err)) throw inProgress()
    throw err
  }
}

/** The endpoint's newest replay, or 404 when it never had one. */
export async function replayOf(db: Database, endpoint: WebhookEndpointRow): Promise<WebhookReplayRow> {
  const row = await latestReplay(db, endpoint.id)
  if (!row) throw new AppError('not_found', { message: 'This endpoint has never been replayed.' })
  return row
}
