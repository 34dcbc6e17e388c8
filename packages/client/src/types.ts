import type { RequestBodyJSON, SuccessResponseJSON } from 'openapi-typescript-helpers'
import type { components, operations } from './generated/openapi.ts'

// Read from the document with openapi-typescript-helpers, as the calls in transport.ts are.
export type Order = components['schemas']['Order']
export type OrderItem = Order['items'][number]
export type CreateOrderRequest = RequestBodyJSON<operations['createOrder']>
export type OrderWarning = SuccessResponseJSON<operations['createOrder']>['data']['warnings'][number]
export type OrdersPage = SuccessResponseJSON<operations['listOrders']>
export type ListOrdersQuery = NonNullable<operations['listOrders']['parameters']['query']>
export type Ping = SuccessResponseJSON<operations['ping']>['data']
export type UploadSlot = SuccessResponseJSON<operations['createUpload']>['data']
export type ErrorBody = components['schemas']['ErrorResponse']['error']
export type ValidationEntry = NonNullable<ErrorBody['errors']>[number]
