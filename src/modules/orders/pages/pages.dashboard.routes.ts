import Type from 'typebox'
import {
  actor,
  change,
  ctx,
  DASHBOARD_TAG,
  type DashboardArea,
  viewer,
} from '../../../dashboard/route-config.ts'
import type { ErrorCode } from '../../../http/errors.ts'
import { sendFileDownload } from '../../../http/file-download.ts'
import type { AuditService } from '../../audit/audit.service.ts'
import { UploadSlot } from '../../uploads/uploads.schemas.ts'
import type { WebhookService } from '../../webhooks/webhooks.service.ts'
import { HistoryAnswer, OrderChangeRequest, UploadSlotRequest } from '../changes/changes.schemas.ts'
import type { OrderEditService } from '../changes/changes.service.ts'
import type { OrderService } from '../orders.service.ts'
import {
  FileDownload,
  OrderAnswer,
  OrderChangedAnswer,
  OrderFileParams,
  OrderParams,
  TimelineAnswer,
} from './pages.schemas.ts'

const tags = [DASHBOARD_TAG]

/**
 * The order page: one order of either environment (ids are unique), its
 * files through the session, and the timeline of its events and deliveries.
 * Every route answers 404 for an order of another organization.
 */
export const orderDashboardRoutes: DashboardArea<{
  orders: OrderService
  webhooks: WebhookService
  orderEdits: OrderEditService
  audit: AuditService
}> = (app, { orders, webhooks, orderEdits, audit }) => {
  const refusals: ErrorCode[] = ['not_found', 'production_conflict', 'validation_failed']

  app.get(
    '/orders/:order_id',
    {
      config: viewer,
      schema: {
        operationId: 'dashboardGetOrder',
        tags,
        summary: 'An order with its items, personalization, production status and files',
        params: OrderParams,
        response: { 200: OrderAnswer },
      },
    },
    async (request) => ({
      data: {
        order: await orders.getForOrganization(ctx(request).member.organization_id, request.params.order_id),
      },
    }),
  )

  app.get(
    '/orders/:order_id/files/:upload_id',
    {
      config: viewer,
      schema: {
        operationId: 'dashboardDownloadOrderFile',
        tags,
        summary: 'A file of the order: the stored bytes as a download (the only way to reach them)',
        params: OrderFileParams,
        response: { 200: FileDownload },
      },
    },
    async (request, reply) => {
      const { order_id, upload_id } = request.params
      const file = await orders.openFile(order_id, upload_id, ctx(request).member.organization_id)
      return sendFileDownload(reply, file)
    },
  )

  app.get(
    '/orders/:order_id/timeline',
    {
      config: viewer,
      schema: {
        operationId: 'dashboardOrderTimeline',
        tags,
        summary: "The order's events, oldest first, with their webhook deliveries",
        params: OrderParams,
        response: { 200: TimelineAnswer },
      },
    },
    async (request) => {
      const organizationId = ctx(request).member.organization_id
      const order = await orders.requireOwn(organizationId, request.params.order_id)
      return { data: await webhooks.orderTimeline(organizationId, order.id) }
    },
  )

  app.get(
    '/orders/:order_id/history',
    {
      config: viewer,
      schema: {
        operationId: 'dashboardOrderHistory',
        tags,
        summary: 'Changes and cancellations of the order made in the dashboard or the console, oldest first',
        params: OrderParams,
        response: { 200: HistoryAnswer },
      },
    },
    async (request) => {
      const organizationId = ctx(request).member.organization_id
      const order = await orders.requireOwn(organizationId, request.params.order_id)
      return {
        data: await audit.orderHistory(organizationId, order.id, await orders.productionSubjects(order.id)),
      }
    },
  )

  app.post(
    '/orders/:order_id/changes',
    {
      config: { ...change('developer'), errors: refusals },
      schema: {
        operationId: 'dashboardChangeOrder',
        tags,
        summary:
          'Change the customer, or an item\u2019s quantity, personalization or files, before production starts',
        description:
          'Checked as part of the whole order with the rules and messages of POST /v1/orders. `expected_updated_at` is the updated_at the page showed: a later change is a 409 and nothing is written. Once production has started the order can only be changed by the operator (409). Live API orders record an `order.updated` event.',
        params: OrderParams,
        body: OrderChangeRequest,
        response: { 200: OrderChangedAnswer },
      },
    },
    async (request) => {
      const organizationId = ctx(request).member.organization_id
      const { order, changed } = await orderEdits.change(request.params.order_id, request.body, {
        actor: actor(request),
        organizationId,
      })
      const { organization_id: _, ...own } = order
      return { data: { order: own, changed } }
    },
  )

  app.post(
    '/orders/:order_id/uploads',
    {
      config: { ...change('developer'), errors: ['not_found', 'validation_failed'] },
      schema: {
        operationId: 'dashboardCreateOrderUpload',
        tags,
        summary: 'An upload slot for a file to add to an item of the order (PUT the bytes to upload_url)',
        params: OrderParams,
        body: UploadSlotRequest,
        response: { 201: Type.Object({ data: UploadSlot }) },
      },
    },
    async (request, reply) => {
      const organizationId = ctx(request).member.organization_id
      reply.code(201)
      return {
        data: await orderEdits.createUploadSlot(
          request.params.order_id,
          request.body.filename,
          organizationId,
        ),
      }
    },
  )
}
