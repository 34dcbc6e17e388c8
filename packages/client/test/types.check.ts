/**
 * Type-level checks of the client, never run: `npm run typecheck` compiles
 * this file (the root tsconfig includes packages/client/test), and each
 * `@ts-expect-error` must meet an error. A change that let a wrong path,
 * parameter or body through, or turned a type into `any`, fails the check.
 */
import type { OrderIntakeClient } from '../src/client.ts'
import type { Transport } from '../src/transport.ts'
import type {
  CreateOrderRequest,
  ListOrdersQuery,
  Order,
  OrdersPage,
  Ping,
  UploadSlot,
} from '../src/types.ts'

declare const client: OrderIntakeClient
declare const transport: Transport
declare const order: CreateOrderRequest

type IsAnyOrNever<T> = 0 extends 1 & T ? true : [T] extends [never] ? true : false
const documented: IsAnyOrNever<
  Order | CreateOrderRequest | OrdersPage | ListOrdersQuery | Ping | UploadSlot
>[] = [false]

export async function checks() {
  // What the document says, accepted; the answer typed from it.
  const created = await transport.call('POST', '/v1/orders', { body: order, retry: 'safe' })
  const createdOrder: Order = created.body.data.order
  // @ts-expect-error the answer is typed, not any: it has no such field
  created.body.data.receipt
  await transport.call('GET', '/v1/orders/{id}', { params: { path: { id: 'ord_1' } }, retry: 'safe' })
  await transport.call('GET', '/v1/orders', { params: { query: { limit: 10 } }, retry: 'safe' })
  await client.orders.create(order)

  // A wrong body: a field missing, a field the document does not have, a body where none is taken.
  // @ts-expect-error customer, items and the rest are required
  await client.orders.create({ external_order_id: 'WEB-1' })
  // @ts-expect-error customer, items and the rest are required
  await transport.call('POST', '/v1/orders', { body: { external_order_id: 'WEB-1' }, retry: 'safe' })
  // @ts-expect-error no field `notes` in the body of POST /v1/orders
  await transport.call('POST', '/v1/orders', { body: { ...order, notes: 'x' }, retry: 'safe' })
  // @ts-expect-error POST /v1/orders requires a body
  await transport.call('POST', '/v1/orders', { retry: 'safe' })
  // @ts-expect-error GET takes no body
  await transport.call('GET', '/v1/ping', { body: {}, retry: 'safe' })

  // A wrong path, method or parameter.
  // @ts-expect-error no such path
  await transport.call('GET', '/v1/order', { retry: 'safe' })
  // @ts-expect-error /v1/orders takes no DELETE
  await transport.call('DELETE', '/v1/orders', { retry: 'safe' })
  // @ts-expect-error the path's {id} is required
  await transport.call('GET', '/v1/orders/{id}', { retry: 'safe' })
  // @ts-expect-error no query parameter `limt`
  await transport.call('GET', '/v1/orders', { params: { query: { limt: 10 } }, retry: 'safe' })

  return { documented, createdOrder }
}
