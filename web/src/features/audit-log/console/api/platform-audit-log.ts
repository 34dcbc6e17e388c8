import { useInfiniteQuery } from '@tanstack/react-query'
import { call, client } from '../../../../lib/api.ts'
import type { AuditFilter } from '../../components/audit-filters.tsx'

/** The platform's log: what operators did, newest first, 50 a page. */
export function usePlatformAuditLog(filter: AuditFilter) {
  return useInfiniteQuery({
    queryKey: ['operator', 'audit-log', filter],
    queryFn: ({ pageParam }) =>
      call(
        client.GET('/operator/audit-log', {
          params: { query: { ...filter, limit: 50, cursor: pageParam || undefined } },
        }),
      ),
    initialPageParam: '',
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    refetchInterval: 10_000,
  })
}
