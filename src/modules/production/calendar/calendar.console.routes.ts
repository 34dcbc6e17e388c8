import Type from 'typebox'
import {
  DASHBOARD_TAG,
  type DashboardArea,
  opActor,
  operatorChange,
  operatorOnly,
} from '../../../dashboard/route-config.ts'
import type { ProductionService } from '../production.service.ts'
import { CalendarAnswer, CalendarBody, CalendarSaved, DueCounts } from './calendar.console.schemas.ts'

/**
 * The console's production calendar (docs/production.md): working weekdays,
 * closed days and the default lead time that date production orders; and
 * the counts of late and due-today orders.
 */
export const productionCalendarConsoleRoutes: DashboardArea<{
  production: Pick<ProductionService, 'calendar' | 'dueCounts'>
}> = (app, { production }) => {
  const tags = [DASHBOARD_TAG]

  app.get(
    '/operator/production-calendar',
    {
      config: operatorOnly,
      schema: {
        operationId: 'dashboardOperatorProductionCalendar',
        tags,
        summary: 'The production calendar: time zone, working weekdays, closed days ahead, default lead time',
        response: { 200: CalendarAnswer },
      },
    },
    async () => ({ data: await production.calendar.calendar() }),
  )

  app.put(
    '/operator/production-calendar',
    {
      config: { ...operatorChange(), errors: ['validation_failed'] },
      schema: {
        operationId: 'dashboardOperatorSetProductionCalendar',
        tags,
        summary: 'Replace the production calendar; every open production order is dated again',
        body: CalendarBody,
        response: { 200: CalendarSaved },
      },
    },
    async (request) => {
      const saved = await production.calendar.setCalendar(request.body, opActor(request))
      return { data: saved }
    },
  )

  app.get(
    '/operator/production/due',
    {
      config: operatorOnly,
      schema: {
        operationId: 'dashboardOperatorDueCounts',
        tags,
        summary: 'Open production orders late and due today (of one organization, or all)',
        querystring: Type.Object(
          { organization_id: Type.Optional(Type.String({ maxLength: 64 })) },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ data: DueCounts }) },
      },
    },
    async (request) => ({ data: await production.dueCounts(request.query.organization_id || undefined) }),
  )
}
