import Type from 'typebox'
import {
  DASHBOARD_TAG,
  type DashboardArea,
  opActor,
  operatorChange,
  operatorOnly,
} from '../../../dashboard/route-config.ts'
import { sendFileDownload } from '../../../http/file-download.ts'
import { ORDER_BODY_LIMIT } from '../../../http/json-body.ts'
import type { AuditService } from '../../audit/audit.service.ts'
import { OrgParams } from '../../organizations/organizations.console.schemas.ts'
import { UploadSlot } from '../../uploads/uploads.schemas.ts'
import type { WebhookService } from '../../webhooks/webhooks.service.ts'
import { HistoryAnswer, OrderChangeRequest, UploadSlotRequest } from '../changes/changes.schemas.ts'
import type { OrderEditService } from '../changes/changes.service.ts'
import { OrderRequest } from '../orders.schemas.ts'
import type { OrderService } from '../orders.service.ts'
import { OperatorOrderChanged, OperatorOrderPageAnswer, ShopOrderCreated } from './pages.console.schemas.ts'
import { FileDownload, OrderFileParams, OrderParams, TimelineAnswer } from './pages.schemas.ts'

/**
 * Shop orders entered in the operator console (always live; they produce no
 * events), and the console's order page: changes to any order, production
 * started or not (the cancel and the release of a held order are production's).
 */
export const ordersConsoleRoutes: DashboardArea<{
  orders: OrderService
  orderEdits: OrderEditService
  audit: AuditService
  webhooks: Pick<WebhookService, 'orderTimeline'>
}> = (app, { orders, orderEdits, audit, webhooks }) => {
  const tags = [DASHBOARD_TAG]

  app.post(
    '/operator/organizations/:org_id/shop-orders',
    {
      config: {
        ...operatorChange(),
        errors: ['not_found', 'validation_failed', 'order_already_exists_with_different_content'],
      },
      bodyLimit: ORDER_BODY_LIMIT,
      schema: {
        operationId: 'dashboardOperatorCreateShopOrder',
        tags,
        summary: 'Create a shop order (always live; it produces no events)',
        params: OrgParams,
        body: OrderRequest,
        response: { 200: ShopOrderCreated, 201: ShopOrderCreated },
      },
    },
    async (request, reply) => {
      const result = await orders.createShopOrder(request.params.org_id, request.body, opActor(request))
      reply.code(result.created ? 201 : 200)
      return { data: { order: result.order, created: result.created, events: [] } }
    },
  )

  app.get(
    '/operator/orders/:order_id',
    {
      config: operatorOnly,
      schema: {
        operationId: 'dashboardOperatorGetOrder',
        tags,
        summary: 'An order of any organization, as the operator sees it, with its organization\u2019s name',
        params: OrderParams,
        response: { 200: OperatorOrderPageAnswer },
      },
    },
    async (request) => ({ data: await orders.getOperatorPage(request.params.order_id) }),
  )

  app.get(
    '/operator/orders/:order_id/files/:upload_id',
    {
      config: { ...operatorOnly, errors: ['not_found'] },
      schema: {
        operationId: 'dashboardOperatorDownloadOrderFile',
        tags,
        summary: "A file of any organization's order: the stored bytes as a download (SVG sanitized)",
        params: OrderFileParams,
        response: { 200: FileDownload },
      },
    },
    async (request, reply) =>
      sendFileDownload(reply, await orders.openFile(request.params.order_id, request.params.upload_id)),
  )

  app.get(
    '/operator/orders/:order_id/history',
    {
      config: operatorOnly,
      schema: {
        operationId: 'dashboardOperatorOrderHistory',
        tags,
        summary: 'Changes and cancellations of the order, oldest first',
        params: OrderParams,
        response: { 200: HistoryAnswer },
      },
    },
    async (request) => {
      const order = await orders.getOperatorView(request.params.order_id)
      const production = await orders.productionSubjects(order.id)
      return { data: await audit.orderHistory(order.organization_id, order.id, production) }
    },
  )

  app.get(
    '/operator/orders/:order_id/timeline',
    {
      config: operatorOnly,
      schema: {
        operationId: 'dashboardOperatorOrderTimeline',
        tags,
        summary:
          "The order's events, oldest first, with their webhook deliveries (as its organization sees them)",
        params: OrderParams,
        response: { 200: TimelineAnswer },
      },
    },
    async (request) => {
      const order = await orders.getOperatorView(request.params.order_id)
      return { data: await webhooks.orderTimeline(order.organization_id, order.id) }
    },
  )

  app.post(
    '/operator/orders/:order_id/changes',
    {
      config: { ...operatorChange(), errors: ['not_found', 'production_conflict', 'validation_failed'] },
      schema: {
        operationId: 'dashboardOperatorChangeOrder',
        tags,
        summary:
          'Change an order (customer, item quantity, personalization, files), even once production started',
        description:
          'The same rules, precondition and order.updated event as the dashboard\u2019s change; audited as the operator.',
        params: OrderParams,
        body: OrderChangeRequest,
        response: { 200: OperatorOrderChanged },
      },
    },
    async (request) => {
      const { order, changed } = await orderEdits.change(request.params.order_id, request.body, {
        actor: opActor(request),
      })
      return { data: { order, changed } }
    },
  )

  app.post(
    '/operator/orders/:order_id/uploads',
    {
      config: { ...operatorChange(), errors: ['not_found', 'validation_failed'] },
      schema: {
        operationId: 'dashboardOperatorCreateOrderUpload',
        tags,
        summary: 'An upload slot for a file to add to an item of the order',
        params: OrderParams,
        body: UploadSlotRequest,
        response: { 201: Type.Object({ data: UploadSlot }) },
      },
    },
    async (request, reply) => {
      reply.code(201)
      return { data: await orderEdits.createUploadSlot(request.params.order_id, request.body.filename) }
    },
  )
}
