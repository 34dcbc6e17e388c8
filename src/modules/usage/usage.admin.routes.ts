import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { op } from '../../http/admin-route-config.ts'
import { UsageQuery } from './usage.schemas.ts'
import type { UsageService } from './usage.service.ts'

/** /admin/v1/usage: every organization's usage for billing in a month, as the console's Billing page shows it. */
export function usageAdminRoutes(deps: { usage: UsageService }) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
    app.get('/usage', { config: op, schema: { querystring: UsageQuery } }, async (request) => ({
      data: await deps.usage.platformUsage(request.query.month),
    }))
  }
}
