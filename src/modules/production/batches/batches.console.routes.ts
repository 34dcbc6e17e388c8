import {
  DASHBOARD_TAG,
  type DashboardArea,
  opActor,
  operatorChange,
  operatorOnly,
} from '../../../dashboard/route-config.ts'
import { AppError, type ErrorCode } from '../../../http/errors.ts'
import type { ProductionService } from '../production.service.ts'
import { eventsView } from '../production.views.ts'
import {
  AddOrdersBody,
  BatchActed,
  BatchAnswer,
  BatchDeleted,
  BatchListQuery,
  BatchOrderParams,
  BatchPage,
  BatchParams,
  CreateBatchBody,
  FailBatchBody,
  StationBody,
} from './batches.console.schemas.ts'
import type { BatchAction, BatchSelection } from './batches.service.ts'

/** The body's orders: ids or a selection, exactly one of them. */
function selection(body: {
  production_order_ids?: string[] | undefined
  select?: { sku?: string; due_by?: string; organization_id?: string } | undefined
}): BatchSelection {
  if ((body.production_order_ids === undefined) === (body.select === undefined)) {
    throw AppError.validation([
      {
        code: 'required',
        field: 'production_order_ids',
        message: 'Give either production_order_ids or select (not both).',
      },
    ])
  }
  if (body.production_order_ids) return { productionOrderIds: body.production_order_ids }
  const s = body.select!
  return { sku: s.sku, dueBy: s.due_by, organizationId: s.organization_id }
}

/**
 * The console's batches (docs/production.md): production orders made
 * together. Orders join and leave until the batch starts; starting,
 * completing or failing it moves each order as its own status change would.
 */
export const productionBatchConsoleRoutes: DashboardArea<{
  production: Pick<ProductionService, 'batches' | 'stations'>
}> = (app, { production }) => {
  const tags = [DASHBOARD_TAG]
  const { batches } = production
  const changes: ErrorCode[] = ['not_found', 'production_conflict', 'validation_failed']

  app.get(
    '/operator/batches',
    {
      config: { ...operatorOnly, errors: ['validation_failed'] },
      schema: {
        operationId: 'dashboardOperatorListBatches',
        tags,
        summary: 'Batches, newest first, of one status or all (next_cursor pages on)',
        querystring: BatchListQuery,
        response: { 200: BatchPage },
      },
    },
    async (request) =>
      batches.listBatches({
        status: request.query.status,
        cursor: request.query.cursor,
        limit: request.query.limit ?? 25,
      }),
  )

  app.post(
    '/operator/batches',
    {
      config: { ...operatorChange(), errors: changes },
      schema: {
        operationId: 'dashboardOperatorCreateBatch',
        tags,
        summary: 'Make a batch of pending production orders (by id, or all that match a selection)',
        body: CreateBatchBody,
        response: { 201: BatchAnswer },
      },
    },
    async (request, reply) => {
      const { name, ...orders } = request.body
      const data = await batches.createBatch(name, selection(orders), opActor(request))
      return reply.code(201).send({ data })
    },
  )

  app.get(
    '/operator/batches/:batch_id',
    {
      config: { ...operatorOnly, errors: ['not_found'] },
      schema: {
        operationId: 'dashboardOperatorGetBatch',
        tags,
        summary: 'A batch with its orders and their items grouped by product',
        params: BatchParams,
        response: { 200: BatchAnswer },
      },
    },
    async (request) => ({ data: await batches.batch(request.params.batch_id) }),
  )

  app.delete(
    '/operator/batches/:batch_id',
    {
      config: { ...operatorChange(false), errors: ['not_found', 'production_conflict'] },
      schema: {
        operationId: 'dashboardOperatorDeleteBatch',
        tags,
        summary: 'Delete a batch that has not started (its orders are free again, nothing else changes)',
        params: BatchParams,
        response: { 200: BatchDeleted },
      },
    },
    async (request) => ({
      data: { batch: await batches.deleteBatch(request.params.batch_id, opActor(request)) },
    }),
  )

  app.post(
    '/operator/batches/:batch_id/orders',
    {
      config: { ...operatorChange(), errors: changes },
      schema: {
        operationId: 'dashboardOperatorAddBatchOrders',
        tags,
        summary: 'Add pending production orders to a batch that has not started',
        params: BatchParams,
        body: AddOrdersBody,
        response: { 200: BatchAnswer },
      },
    },
    async (request) => ({
      data: await batches.addOrders(request.params.batch_id, selection(request.body), opActor(request)),
    }),
  )

  app.delete(
    '/operator/batches/:batch_id/orders/:production_order_id',
    {
      config: { ...operatorChange(false), errors: ['not_found', 'production_conflict'] },
      schema: {
        operationId: 'dashboardOperatorRemoveBatchOrder',
        tags,
        summary: 'Take a production order out of a batch that has not started',
        params: BatchOrderParams,
        response: { 200: BatchAnswer },
      },
    },
    async (request) => ({
      data: await batches.removeOrder(
        request.params.batch_id,
        request.params.production_order_id,
        opActor(request),
      ),
    }),
  )

  const act = (action: BatchAction, summary: string) =>
    app.post(
      `/operator/batches/:batch_id/${action}`,
      {
        config: { ...operatorChange(), errors: changes },
        schema: {
          operationId: `dashboardOperator${action[0]!.toUpperCase()}${action.slice(1)}Batch`,
          tags,
          summary,
          description:
            'Each order that may move makes the transition it would make alone (its own event and audit entry); the others are left as they are, each result says why. Repeating the action moves only what is left and records nothing twice.',
          params: BatchParams,
          body: action === 'fail' ? FailBatchBody : StationBody,
          response: { 200: BatchActed },
        },
      },
      async (request) => {
        const { reason, station_id } = request.body as { reason?: string; station_id?: string }
        const actor = await production.stations.at(opActor(request), station_id)
        const data = await batches.act(request.params.batch_id, action, actor, { reason })
        return { data: { ...data, events: eventsView(data.events) } }
      },
    )
  act('start', 'Start a batch: its pending orders move to in_progress')
  act('complete', 'Complete a started batch: its orders in progress move to completed')
  act('fail', 'Fail a started batch: its unfinished orders move to failed')
}
