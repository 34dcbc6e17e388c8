import { useQuery } from '@tanstack/react-query'
import { call, client, type OrderPreflight } from '../../lib/api.ts'

export type PreflightFile = OrderPreflight['items'][number]['files'][number]
export type PreflightStatus = PreflightFile['status']

/** The order's files against their products' print specs: the member's own order, or any for the operator. */
export function usePreflight(who: 'member' | 'operator', orderId: string) {
  return useQuery({
    queryKey: ['order', orderId, 'preflight', who],
    queryFn: () =>
      call(
        who === 'member'
          ? client.GET('/orders/{order_id}/preflight', { params: { path: { order_id: orderId } } })
          : client.GET('/operator/orders/{order_id}/preflight', { params: { path: { order_id: orderId } } }),
      ).then((r) => r.data),
    // Measuring takes seconds: look again until every file is checked.
    refetchInterval: (query) => (query.state.data?.status === 'pending' ? 2_000 : 15_000),
    retry: false,
  })
}

/** A file's thumbnail, made by the service (WebP): never the original. */
export const thumbnailUrl = (who: 'member' | 'operator', orderId: string, uploadId: string) =>
  `/dashboard/api/${who === 'operator' ? 'operator/' : ''}orders/${encodeURIComponent(orderId)}/files/${encodeURIComponent(uploadId)}/thumbnail`

/** The lists' print check filter: its values as the dashboard API and console API take them. */
export const PREFLIGHT_FILTER = [
  { value: '', label: 'Any' },
  { value: 'problem', label: 'Files with problems' },
  { value: 'warning', label: 'Files with warnings' },
]
