import { useInfiniteQuery } from '@tanstack/react-query'
import { call, client } from '../../../lib/api.ts'

export function useAuditLog() {
  return useInfiniteQuery({
    queryKey: ['audit-log'],
    queryFn: ({ pageParam }) =>
      call(client.GET('/audit-log', { params: { query: { limit: 50, cursor: pageParam || undefined } } })),
    initialPageParam: '',
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    // New entries appear without a reload.
    refetchInterval: 10_000,
  })
}
