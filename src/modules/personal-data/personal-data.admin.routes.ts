import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { OrgParams, op } from '../../http/admin-route-config.ts'
import { OPERATOR_TOKEN_ACTOR } from '../audit/index.ts'
import type { PersonalDataService } from './erasure.service.ts'
import { matchOf, sendExport } from './personal-data.http.ts'
import { CustomerQuery, ErasureRequest, Retention } from './personal-data.schemas.ts'

/** /admin/v1: a customer's personal data in an organization (the CLI's `personal-data`), and its retention. */
export function personalDataAdminRoutes(deps: { personalData: PersonalDataService }) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
    const { personalData } = deps
    const withBody = { ...op, jsonBody: true }

    app.post(
      '/organizations/:org_id/personal-data/preview',
      { config: withBody, schema: { params: OrgParams, body: CustomerQuery } },
      async (request) => ({
        data: await personalData.preview(
          await personalData.organization(request.params.org_id),
          matchOf(request.body),
        ),
      }),
    )

    app.post(
      '/organizations/:org_id/personal-data/erasures',
      { config: withBody, schema: { params: OrgParams, body: ErasureRequest } },
      async (request) => ({
        data: await personalData.erase(
          await personalData.organization(request.params.org_id),
          matchOf(request.body),
          { personalization: request.body.personalization ?? 'finished' },
          OPERATOR_TOKEN_ACTOR,
        ),
      }),
    )

    app.post(
      '/organizations/:org_id/personal-data/exports',
      { config: withBody, schema: { params: OrgParams, body: CustomerQuery } },
      async (request, reply) =>
        sendExport(
          reply,
          await personalData.export(
            await personalData.organization(request.params.org_id),
            matchOf(request.body),
            OPERATOR_TOKEN_ACTOR,
          ),
        ),
    )

    app.get(
      '/organizations/:org_id/retention',
      { config: op, schema: { params: OrgParams } },
      async (request) => ({
        data: await personalData.retention(request.params.org_id),
      }),
    )

    app.put(
      '/organizations/:org_id/retention',
      { config: withBody, schema: { params: OrgParams, body: Retention } },
      async (request) => ({
        data: await personalData.setRetention(request.params.org_id, request.body, OPERATOR_TOKEN_ACTOR),
      }),
    )
  }
}
