import type { Database } from '../../../db/database.ts'
import { AppError } from '../../../http/errors.ts'
import type { Clock } from '../../../lib/clock.ts'
import { isUuid, newId } from '../../../lib/ids.ts'
import { type AuditActor, recordAudit } from '../../audit/audit.service.ts'
import type { RecordedEvent } from '../../webhooks/outbox/outbox.service.ts'
import type { Batches } from '../batches/batches.service.ts'
import type { createProductionBoard } from '../board/board.service.ts'
import {
  archiveStation,
  findStation,
  insertStation,
  listStations,
  renameStation,
  type StationRow,
} from './stations.repo.ts'

/**
 * What a sheet's QR code says (docs/production.md): `po:<production order
 * id>` (the job sheet, and each order on a batch sheet), `batch:<batch id>`,
 * `job:<production job id>` (an item's line). A bare id is a production
 * order's, as job sheets printed before the prefixes carried.
 */
export type ScanCode = { kind: 'production_order' | 'batch' | 'job'; id: string }

const PREFIXES: Record<string, ScanCode['kind']> = { po: 'production_order', batch: 'batch', job: 'job' }

/** The code a scanner typed, read; undefined: not a code of our sheets. */
export function readScanCode(code: string): ScanCode | undefined {
  const text = code.trim()
  if (isUuid(text)) return { kind: 'production_order', id: text.toLowerCase() }
  const colon = text.indexOf(':')
  const kind = PREFIXES[text.slice(0, colon).toLowerCase()]
  const id = text.slice(colon + 1)
  return colon > 0 && kind && isUuid(id) ? { kind, id: id.toLowerCase() } : undefined
}

const stationView = (s: StationRow) => ({
  id: s.id,
  name: s.name,
  created_at: s.created_at.toISOString(),
  updated_at: s.updated_at.toISOString(),
})

const stationNotFound = () => new AppError('not_found', { message: 'No station with this id.' })
const nameTaken = (name: string) =>
  new AppError('production_conflict', {
    message: `A station named '${name}' exists already. Nothing was done.`,
  })

/** What a scan opens or does; each is what the station page shows next. */
interface ScanDeps {
  productionOrder: ReturnType<typeof createProductionBoard>['productionOrder']
  batch: Batches['batch']
  completeJob: (
    jobId: string,
    actor: AuditActor,
  ) => Promise<{
    view: { id: string; production_order_id: string; order_item_id: string; status: string }
    events: RecordedEvent[]
  }>
}

/**
 * The floor's stations: named places ("Press 2", "Packing") operators act
 * from. An action made at a station carries it in its audit entry; a scan at
 * a station opens the sheet's production order or batch, or completes the
 * item's job a line names.
 */
export function createStations(deps: { db: Database; clock: Clock } & ScanDeps) {
  const { db, clock } = deps

  /** The station, not removed (404 otherwise). */
  async function current(stationId: string) {
    const station = isUuid(stationId) ? await findStation(db, stationId) : undefined
    if (!station) throw stationNotFound()
    return station
  }

  /** The operator acting at a station (404 for an unknown or archived one); none given: the operator alone. */
  async function at(actor: AuditActor, stationId: string | undefined): Promise<AuditActor> {
    if (stationId === undefined) return actor
    const station = await current(stationId)
    return { ...actor, station: { id: station.id, name: station.name } }
  }

  return {
    async list() {
      return (await listStations(db)).map(stationView)
    },

    async get(stationId: string) {
      return stationView(await current(stationId))
    },

    async create(name: string, actor: AuditActor) {
      return db.transaction().execute(async (trx) => {
        const id = newId()
        if (!(await insertStation(trx, { id, name, at: clock.now() }))) throw nameTaken(name)
        await recordAudit(trx, clock, {
          organizationId: null,
          actor,
          action: 'production.station_created',
          subject: id,
          details: { name },
        })
        return stationView((await findStation(trx, id))!)
      })
    },

    async rename(stationId: string, name: string, actor: AuditActor) {
      const before = await current(stationId)
      return db.transaction().execute(async (trx) => {
        const renamed = await renameStation(trx, before.id, name, clock.now())
        if (renamed === false) throw nameTaken(name)
        if (renamed === undefined) throw stationNotFound()
        await recordAudit(trx, clock, {
          organizationId: null,
          actor,
          action: 'production.station_renamed',
          subject: before.id,
          details: { from: before.name, name },
        })
        return stationView((await findStation(trx, before.id))!)
      })
    },

    /** Removes a station from the floor; the audit log keeps its name on what was done there. */
    async archive(stationId: string, actor: AuditActor) {
      return db.transaction().execute(async (trx) => {
        const archived = isUuid(stationId) ? await archiveStation(trx, stationId, clock.now()) : undefined
        if (!archived) throw stationNotFound()
        await recordAudit(trx, clock, {
          organizationId: null,
          actor,
          action: 'production.station_archived',
          subject: archived.id,
          details: { name: archived.name },
        })
        return stationView(archived)
      })
    },

    at,

    /**
     * A scan at a station: a production order's or batch's code opens it; an
     * item line's code completes that item's job (409 when it already is). A
     * code of another kind is 422; one that names nothing is 404.
     */
    async scan(stationId: string, code: string, actor: AuditActor) {
      const acting = await at(actor, stationId)
      const read = readScanCode(code)
      if (!read) {
        throw AppError.validation([
          {
            code: 'invalid_format',
            field: 'code',
            message: 'This is not a code from a job sheet or a batch sheet (po:…, batch:… or job:…).',
          },
        ])
      }
      const nothing = {
        production_order: null,
        batch: null,
        production_job: null,
        events: [] as RecordedEvent[],
      }
      if (read.kind === 'production_order') {
        return { ...nothing, kind: read.kind, production_order: await deps.productionOrder(read.id) }
      }
      if (read.kind === 'batch') return { ...nothing, kind: read.kind, batch: await deps.batch(read.id) }
      const done = await deps.completeJob(read.id, acting)
      return {
        kind: read.kind,
        batch: null,
        production_job: done.view,
        events: done.events,
        production_order: await deps.productionOrder(done.view.production_order_id),
      }
    },
  }
}

export type Stations = ReturnType<typeof createStations>
