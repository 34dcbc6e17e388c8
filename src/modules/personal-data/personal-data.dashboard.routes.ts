import { actor, change, ctx, DASHBOARD_TAG, type DashboardArea } from '../../dashboard/route-config.ts'
import type { PersonalDataService } from './erasure.service.ts'
import { matchOf, sendExport } from './personal-data.http.ts'
import {
  CustomerQuery,
  ErasureAnswer,
  ErasureRequest,
  ExportAnswer,
  PreviewAnswer,
  Retention,
  RetentionAnswer,
} from './personal-data.schemas.ts'

/**
 * A customer's personal data in the member's organization: developers
 * preview and export it, owners erase it; owners see and set how long each
 * kind of data is kept.
 */
export const personalDataDashboardRoutes: DashboardArea<{ personalData: PersonalDataService }> = (
  app,
  { personalData },
) => {
  const tags = [DASHBOARD_TAG]

  app.post(
    '/personal-data/preview',
    {
      config: { ...change('developer'), errors: ['validation_failed'] },
      schema: {
        operationId: 'dashboardPreviewPersonalData',
        tags,
        summary: 'The orders of a customer and what an erasure would remove; changes nothing',
        body: CustomerQuery,
        response: { 200: PreviewAnswer },
      },
    },
    async (request) => ({
      data: await personalData.preview(ctx(request).member.organization_id, matchOf(request.body)),
    }),
  )

  app.post(
    '/personal-data/erasures',
    {
      config: { ...change('owner'), errors: ['validation_failed'] },
      schema: {
        operationId: 'dashboardErasePersonalData',
        tags,
        summary: 'Erase a customer’s personal data from their orders and every copy kept; cannot be undone',
        description:
          'The customer’s name becomes `erased`, e-mail and phone null; with `personalization`, the items’ personalization values become `erased` and their files’ names too. Request-log bodies, receivers’ answers and audit values holding them go. Orders keep their ids, numbers, items, prices, statuses and dates; `updated_at` moves. Run again after an interruption, it finishes what was left.',
        body: ErasureRequest,
        response: { 200: ErasureAnswer },
      },
    },
    async (request) => ({
      data: await personalData.erase(
        ctx(request).member.organization_id,
        matchOf(request.body),
        { personalization: request.body.personalization ?? 'finished' },
        actor(request),
      ),
    }),
  )

  app.post(
    '/personal-data/exports',
    {
      config: { ...change('developer'), errors: ['validation_failed'] },
      schema: {
        operationId: 'dashboardExportPersonalData',
        tags,
        summary: 'Everything stored about a customer, as a JSON file (an access request)',
        body: CustomerQuery,
        response: { 200: ExportAnswer },
      },
    },
    async (request, reply) =>
      sendExport(
        reply,
        await personalData.export(ctx(request).member.organization_id, matchOf(request.body), actor(request)),
      ),
  )

  app.get(
    '/retention',
    {
      config: { auth: 'session', role: 'owner' },
      schema: {
        operationId: 'dashboardRetention',
        tags,
        summary:
          'How long the organization keeps request bodies, receivers’ answers and finished orders’ personal data',
        response: { 200: RetentionAnswer },
      },
    },
    async (request) => ({ data: await personalData.retention(ctx(request).member.organization_id) }),
  )

  app.put(
    '/retention',
    {
      config: { ...change('owner'), errors: ['validation_failed'] },
      schema: {
        operationId: 'dashboardSetRetention',
        tags,
        summary: 'Set how long each kind of data is kept; the background prune applies it within the hour',
        body: Retention,
        response: { 200: RetentionAnswer },
      },
    },
    async (request) => ({
      data: await personalData.setRetention(
        ctx(request).member.organization_id,
        request.body,
        actor(request),
      ),
    }),
  )
}
