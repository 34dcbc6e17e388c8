import type { components, operations } from './generated/openapi.ts'

/** The JSON body of an operation's response with the given status. */
type JsonOf<Op, Status extends number> = Op extends {
  responses: { [S in Status]: { content: { 'application/json': infer Body } } }
}
  ? Body
  : never

/** The JSON request body of an operation. */
type RequestOf<Op> = Op extends { requestBody?: { content: { 'application/json': infer Body } } }
  ? Body
  : never

export type Order = components['schemas']['Order']
export type OrderItem = Order['items'][number]
export type CreateOrderRequest = RequestOf<operations['createOrder']>
export type OrderWarning = JsonOf<operations['createOrder'], 201>['data']['warnings'][number]
export type OrdersPage = JsonOf<operations['listOrders'], 200>
export type ListOrdersQuery = NonNullable<operations['listOrders']['parameters']['query']>
export type Ping = JsonOf<operations['ping'], 200>['data']
export type UploadSlot = JsonOf<operations['createUpload'], 201>['data']
export type ErrorBody = components['schemas']['ErrorResponse']['error']
export type ValidationEntry = NonNullable<ErrorBody['errors']>[number]
