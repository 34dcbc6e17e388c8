import { useInfiniteQuery } from '@tanstack/react-query'
import { call, client, filled, type Query } from '../../../lib/api.ts'

/** A status filter as the URL carries it: anything else is the service's 400, which the page shows. */
type Status = Query<'/orders'>['status']

export interface OrderFilters {
  environment: 'test' | 'live'
  status: string
  from: string
  to: string
  q: string
  /** 'true' or 'false', '' for any (as the URL carries them). */
  held: string
  priority: string
  partner: string
  tag: string
  /** 'problem' or 'warning': the print check's verdict, '' for any. */
  preflight: string
}

const bool = (value: string) => (value === 'true' ? true : value === 'false' ? false : undefined)

/** The CSV of every order these filters select (the service streams it, whatever the count). */
export function ordersCsvUrl(filters: OrderFilters): string {
  const query = new URLSearchParams()
  for (const [key, value] of Object.entries(filters)) if (value) query.set(key, value)
  return `/dashboard/api/orders.csv?${query}`
}

export function useOrders(filters: OrderFilters) {
  return useInfiniteQuery({
    queryKey: ['orders', filters],
    queryFn: ({ pageParam }) =>
      call(
        client.GET('/orders', {
          params: {
            query: {
              ...filled({ ...filters, cursor: pageParam }),
              status: (filters.status || undefined) as Status,
              held: bool(filters.held),
              partner: bool(filters.partner),
              priority: (filters.priority || undefined) as Query<'/orders'>['priority'],
              preflight: (filters.preflight || undefined) as Query<'/orders'>['preflight'],
              limit: 50,
            },
          },
        }),
      ),
    initialPageParam: '',
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    // New orders and status changes appear without a reload.
    refetchInterval: 5_000,
  })
}
