import {
  DASHBOARD_TAG,
  type DashboardArea,
  opActor,
  operatorChange,
  operatorOnly,
} from '../../../dashboard/route-config.ts'
import type { ErrorCode } from '../../../http/errors.ts'
import type { ProductionService } from '../production.service.ts'
import { eventsView } from '../production.views.ts'
import {
  ScanAnswer,
  ScanBody,
  StationAnswer,
  StationList,
  StationNameBody,
  StationParams,
} from './stations.console.schemas.ts'

/**
 * The console's stations (docs/production.md): named places on the floor,
 * and the scan a station page sends for each code its scanner reads.
 */
export const productionStationConsoleRoutes: DashboardArea<{
  production: Pick<ProductionService, 'stations'>
}> = (app, { production }) => {
  const tags = [DASHBOARD_TAG]
  const { stations } = production
  const changes: ErrorCode[] = ['not_found', 'production_conflict', 'validation_failed']

  app.get(
    '/operator/stations',
    {
      config: operatorOnly,
      schema: {
        operationId: 'dashboardOperatorListStations',
        tags,
        summary: 'The stations, by name',
        response: { 200: StationList },
      },
    },
    async () => ({ data: await stations.list() }),
  )

  app.post(
    '/operator/stations',
    {
      config: { ...operatorChange(), errors: changes },
      schema: {
        operationId: 'dashboardOperatorCreateStation',
        tags,
        summary: 'Add a station (its name unique, any case)',
        body: StationNameBody,
        response: { 201: StationAnswer },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ data: { station: await stations.create(request.body.name, opActor(request)) } }),
  )

  app.get(
    '/operator/stations/:station_id',
    {
      config: { ...operatorOnly, errors: ['not_found'] },
      schema: {
        operationId: 'dashboardOperatorGetStation',
        tags,
        summary: 'A station',
        params: StationParams,
        response: { 200: StationAnswer },
      },
    },
    async (request) => ({ data: { station: await stations.get(request.params.station_id) } }),
  )

  app.patch(
    '/operator/stations/:station_id',
    {
      config: { ...operatorChange(), errors: changes },
      schema: {
        operationId: 'dashboardOperatorRenameStation',
        tags,
        summary: 'Rename a station (the audit log keeps the name each action was made under)',
        params: StationParams,
        body: StationNameBody,
        response: { 200: StationAnswer },
      },
    },
    async (request) => ({
      data: {
        station: await stations.rename(request.params.station_id, request.body.name, opActor(request)),
      },
    }),
  )

  app.delete(
    '/operator/stations/:station_id',
    {
      config: { ...operatorChange(false), errors: ['not_found'] },
      schema: {
        operationId: 'dashboardOperatorRemoveStation',
        tags,
        summary: 'Remove a station from the floor (what was done there keeps its name in the audit log)',
        params: StationParams,
        response: { 200: StationAnswer },
      },
    },
    async (request) => ({
      data: { station: await stations.archive(request.params.station_id, opActor(request)) },
    }),
  )

  app.post(
    '/operator/stations/:station_id/scan',
    {
      config: { ...operatorChange(), errors: changes },
      schema: {
        operationId: 'dashboardOperatorScan',
        tags,
        summary:
          'A scan at a station: opens the production order or batch, or completes the item a line names',
        description:
          'po:… and batch:… answer what the code names (nothing changes); job:… completes that item’s job as the station’s operator (409 when it already is). A code from elsewhere is 422 validation_failed on code; one that names nothing is 404.',
        params: StationParams,
        body: ScanBody,
        response: { 200: ScanAnswer },
      },
    },
    async (request) => {
      const scanned = await stations.scan(request.params.station_id, request.body.code, opActor(request))
      return { data: { ...scanned, events: eventsView(scanned.events) } }
    },
  )
}
