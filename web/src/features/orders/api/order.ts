import { useQuery } from '@tanstack/react-query'
import { call, client } from '../../../lib/api.ts'

/** Order pages follow production and deliveries without a reload. */
export const ORDER_POLL_MS = 5_000

export const orderKey = (id: string) => ['order', id] as const

export function useOrder(id: string) {
  return useQuery({
    queryKey: orderKey(id),
    queryFn: () =>
      call(client.GET('/orders/{order_id}', { params: { path: { order_id: id } } })).then(
        (r) => r.data.order,
      ),
    refetchInterval: ORDER_POLL_MS,
    retry: false,
  })
}

/** The order's events with their webhook deliveries: the member's own, or any order's for the operator. */
export function useOrderTimeline(who: 'member' | 'operator', id: string) {
  return useQuery({
    queryKey: ['order', id, 'timeline', who],
    queryFn: () =>
      call(
        who === 'member'
          ? client.GET('/orders/{order_id}/timeline', { params: { path: { order_id: id } } })
          : client.GET('/operator/orders/{order_id}/timeline', { params: { path: { order_id: id } } }),
      ).then((r) => r.data),
    refetchInterval: ORDER_POLL_MS,
    retry: false,
  })
}

/** A file of the order, through the session (the service has no public address for files). */
export const fileUrl = (orderId: string, uploadId: string, who: 'member' | 'operator' = 'member') =>
  `/dashboard/api/${who === 'operator' ? 'operator/' : ''}orders/${encodeURIComponent(orderId)}/files/${encodeURIComponent(uploadId)}`
