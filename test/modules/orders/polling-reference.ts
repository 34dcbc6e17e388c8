import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'
import type { Database } from '../../../src/db/database.ts'
import { keysetPage } from '../../../src/http/pagination.ts'
import { orderAggregates } from '../../../src/modules/orders/order-aggregates.ts'
import { ORDER_CURSOR } from '../../../src/modules/orders/order-lists.service.ts'
import { toPublicOrder } from '../../../src/modules/orders/orders.mappers.ts'
import type { OrderScope } from '../../../src/modules/orders/orders.repo.ts'
import { ListOrdersResponse } from '../../../src/modules/orders/orders.schemas.ts'
import { PAGE_BUDGET_BYTES, withinBudget } from '../../../src/modules/orders/page-budget.ts'
import type { TestApp } from '../../helpers/app.ts'

/**
 * GET /v1/orders as it was answered before the database wrote the page: the
 * rows by Kysely, cut to the limit and the budget, their items, jobs and files
 * in the aggregates' statements, mapped by toPublicOrder and serialized by the
 * route's response serializer (compiled from the app's schemas by Fastify's
 * own compiler). The bytes the new page must equal.
 */
export function pollingReference(t: TestApp) {
  const serialize = SerializerSelector()(t.app.getSchemas() as never, undefined as never)({
    schema: ListOrdersResponse,
    method: 'GET',
    url: '/v1/orders',
    httpStatus: '200',
  } as never) as (data: unknown) => string
  const { aggregatesFor } = orderAggregates({ db: t.db, uploads: t.services.uploads })

  return async function page(
    scope: OrderScope,
    query: { updated_since?: string; cursor?: string; limit?: number },
    budget = PAGE_BUDGET_BYTES,
  ): Promise<string> {
    const limit = query.limit ?? 50
    const rows = await rowsOf(t.db, {
      scope,
      updatedSince: query.updated_since ? new Date(query.updated_since) : undefined,
      after: query.cursor === undefined ? undefined : ORDER_CURSOR.decode(query.cursor),
      limit,
    })
    const shown = keysetPage(rows, limit, {
      view: (row) => row,
      cursor: (row) => ORDER_CURSOR.encode({ at: row.updated_at, id: row.id }),
      shown: (first) => withinBudget(first, budget),
    })
    const aggregates = await aggregatesFor(shown.data, false)
    return serialize({ data: aggregates.map(toPublicOrder), next_cursor: shown.next_cursor })
  }
}

/** The page's rows as findOrdersPage read them: the keyset condition on the polling index, limit + 1. */
function rowsOf(
  db: Database,
  page: {
    scope: OrderScope
    updatedSince: Date | undefined
    after: { at: Date; id: string } | undefined
    limit: number
  },
) {
  let query = db
    .selectFrom('orders')
    .selectAll()
    .where('organization_id', '=', page.scope.organizationId)
    .where('environment', '=', page.scope.environment)
  if (page.updatedSince) query = query.where('updated_at', '>=', page.updatedSince)
  const after = page.after
  if (after) {
    query = query.where((eb) => eb(eb.refTuple('updated_at', 'id'), '>', eb.tuple(after.at, after.id)))
  }
  return query
    .orderBy('updated_at')
    .orderBy('id')
    .limit(page.limit + 1)
    .execute()
}
