import { useInfiniteQuery } from '@tanstack/react-query'
import { call, client } from '../../../lib/api.ts'
import type { AuditFilter } from '../components/audit-filters.tsx'

export function useAuditLog(filter: AuditFilter) {
  return useInfiniteQuery({
    queryKey: ['audit-log', filter],
    queryFn: ({ pageParam }) =>
      call(
        client.GET('/audit-log', {
          params: { query: { ...filter, limit: 50, cursor: pageParam || undefined } },
        }),
      ),
    initialPageParam: '',
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    // New entries appear without a reload.
    refetchInterval: 10_000,
  })
}
