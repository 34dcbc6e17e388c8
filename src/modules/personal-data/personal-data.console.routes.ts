import {
  DASHBOARD_TAG,
  type DashboardArea,
  opActor,
  operatorChange,
  organizationRead,
} from '../../dashboard/route-config.ts'
import { OrgParams } from '../organizations/organizations.console.schemas.ts'
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

/** Operators act on a customer's personal data in any organization, as owners do in theirs. */
export const personalDataConsoleRoutes: DashboardArea<{ personalData: PersonalDataService }> = (
  app,
  { personalData },
) => {
  const tags = [DASHBOARD_TAG]
  const refusals = ['not_found', 'validation_failed'] as const

  app.post(
    '/operator/organizations/:org_id/personal-data/preview',
    {
      config: { ...operatorChange(), errors: [...refusals] },
      schema: {
        operationId: 'dashboardOperatorPreviewPersonalData',
        tags,
        summary:
          'The orders of a customer of the organization and what an erasure would remove; changes nothing',
        params: OrgParams,
        body: CustomerQuery,
        response: { 200: PreviewAnswer },
      },
    },
    async (request) => ({
      data: await personalData.preview(
        await personalData.organization(request.params.org_id),
        matchOf(request.body),
      ),
    }),
  )

  app.post(
    '/operator/organizations/:org_id/personal-data/erasures',
    {
      config: { ...operatorChange(), errors: [...refusals] },
      schema: {
        operationId: 'dashboardOperatorErasePersonalData',
        tags,
        summary:
          'Erase a customer’s personal data from the organization’s orders and every copy kept; cannot be undone',
        params: OrgParams,
        body: ErasureRequest,
        response: { 200: ErasureAnswer },
      },
    },
    async (request) => ({
      data: await personalData.erase(
        await personalData.organization(request.params.org_id),
        matchOf(request.body),
        { personalization: request.body.personalization ?? 'finished' },
        opActor(request),
      ),
    }),
  )

  app.post(
    '/operator/organizations/:org_id/personal-data/exports',
    {
      config: { ...operatorChange(), errors: [...refusals] },
      schema: {
        operationId: 'dashboardOperatorExportPersonalData',
        tags,
        summary: 'Everything stored about a customer of the organization, as a JSON file',
        params: OrgParams,
        body: CustomerQuery,
        response: { 200: ExportAnswer },
      },
    },
    async (request, reply) =>
      sendExport(
        reply,
        await personalData.export(
          await personalData.organization(request.params.org_id),
          matchOf(request.body),
          opActor(request),
        ),
      ),
  )

  app.get(
    '/operator/organizations/:org_id/retention',
    organizationRead({
      operationId: 'dashboardOperatorRetention',
      summary:
        'How long the organization keeps request bodies, receivers’ answers and finished orders’ personal data',
      response: { 200: RetentionAnswer },
    }),
    async (request) => ({ data: await personalData.retention(request.params.org_id) }),
  )

  app.put(
    '/operator/organizations/:org_id/retention',
    {
      config: { ...operatorChange(), errors: [...refusals] },
      schema: {
        operationId: 'dashboardOperatorSetRetention',
        tags,
        summary: 'Set how long the organization keeps each kind of data',
        params: OrgParams,
        body: Retention,
        response: { 200: RetentionAnswer },
      },
    },
    async (request) => ({
      data: await personalData.setRetention(request.params.org_id, request.body, opActor(request)),
    }),
  )
}
