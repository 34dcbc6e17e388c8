import { useInfiniteQuery, useQuery } from '@tanstack/react-query'
import { type Answer, call, client, filled, type Query } from '../../../lib/api.ts'
import type { Env } from '../../../lib/environment.ts'

export type RequestLine = Answer<'/requests'>['data'][number]
export type RequestDetail = Answer<'/requests/{request_line_id}'>['data']['request']
type RequestsQuery = Query<'/requests'>

/** The list's filters as the address carries them (`?status_class=4xx&path=/v1/orders`): strings, '' for none. */
export const FILTER_NAMES = [
  'status_class',
  'error_code',
  'path',
  'key_id',
  'request_id',
  'order_id',
  'created_since',
  'created_until',
] as const
export type RequestFilters = Record<(typeof FILTER_NAMES)[number], string>

/** How often the list is read again, so new requests appear without a reload. */
const POLL_MS = 5_000

/** The request log of one environment, newest first, a page at a time (Show older requests). */
export function useRequests(env: Env, filters: RequestFilters) {
  return useInfiniteQuery({
    queryKey: ['requests', env, filters],
    queryFn: ({ pageParam }) =>
      call(
        client.GET('/requests', {
          params: {
            query: {
              ...filled({ ...filters, cursor: pageParam }),
              // Anything else in the address is the service's 422, which the page shows.
              status_class: (filters.status_class || undefined) as RequestsQuery['status_class'],
              environment: env,
              limit: 25,
            },
          },
        }),
      ),
    initialPageParam: '',
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    refetchInterval: POLL_MS,
  })
}

export function useRequest(env: Env, id: string) {
  return useQuery({
    queryKey: ['request', env, id],
    queryFn: () =>
      call(
        client.GET('/requests/{request_line_id}', {
          params: { path: { request_line_id: id }, query: { environment: env } },
        }),
      ).then((r) => r.data.request),
    retry: false,
  })
}

/**
 * The POST /v1/orders requests of an order: the one that created it (201)
 * and identical repeats (200). None for shop orders and for orders older
 * than the log.
 */
export function useOrderRequests(env: Env, orderId: string, enabled: boolean) {
  return useQuery({
    enabled,
    queryKey: ['requests', env, 'order', orderId],
    queryFn: () =>
      call(
        client.GET('/requests', {
          params: { query: { environment: env, order_id: orderId, limit: 100 } },
        }),
      ).then((r) => r.data),
    retry: false,
  })
}

/** A request's page: its environment in the address, as the API needs it. */
export const requestHref = (line: { id: string; environment: Env }) =>
  `/requests/${encodeURIComponent(line.id)}?environment=${line.environment}`
