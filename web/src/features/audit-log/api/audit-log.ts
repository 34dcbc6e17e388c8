import { useInfiniteQuery } from '@tanstack/react-query'
import { type AuditPage, api } from '../../../lib/api.ts'

export function useAuditLog() {
  return useInfiniteQuery({
    queryKey: ['audit-log'],
    queryFn: ({ pageParam }) =>
      api<AuditPage>(
        'GET',
        `/audit-log?limit=50${pageParam ? `&cursor=${encodeURIComponent(pageParam)}` : ''}`,
      ),
    initialPageParam: '',
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    // New entries appear without a reload.
    refetchInterval: 10_000,
  })
}
