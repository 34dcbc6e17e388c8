import { useInfiniteQuery } from '@tanstack/react-query'
import type { OrderListPage } from '../../../../../src/modules/orders/orders.dashboard.schemas.ts'
import { api } from '../../../lib/api.ts'

export interface OrderFilters {
  environment: 'test' | 'live'
  status: string
  from: string
  to: string
  q: string
}

export function useOrders(filters: OrderFilters) {
  const query = new URLSearchParams({ environment: filters.environment, limit: '50' })
  for (const key of ['status', 'from', 'to', 'q'] as const) if (filters[key]) query.set(key, filters[key])
  return useInfiniteQuery({
    queryKey: ['orders', filters],
    queryFn: ({ pageParam }) =>
      api<OrderListPage>(
        'GET',
        `/orders?${query}${pageParam ? `&cursor=${encodeURIComponent(pageParam)}` : ''}`,
      ),
    initialPageParam: '',
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    // New orders and status changes appear without a reload.
    refetchInterval: 5_000,
  })
}
