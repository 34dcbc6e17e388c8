import { useQuery } from '@tanstack/react-query'
import { call, client } from '../../../../lib/api.ts'
import { ORDER_POLL_MS } from '../../api/order.ts'

/**
 * The console's order: any organization's, with its organization's id and
 * name (its changes: useOrderEdits('operator', ...)).
 */
export function useOperatorOrder(orderId: string) {
  return useQuery({
    queryKey: ['operator', 'order', orderId],
    queryFn: () =>
      call(client.GET('/operator/orders/{order_id}', { params: { path: { order_id: orderId } } })).then(
        (r) => ({ ...r.data.order, organization: r.data.organization }),
      ),
    refetchInterval: ORDER_POLL_MS,
    retry: false,
  })
}
