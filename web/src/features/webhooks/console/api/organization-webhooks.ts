import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { call, client } from '../../../../lib/api.ts'

/** An organization's webhook endpoints and deliveries as the console sees them (Retry now, redelivery). */
export function useOrgEndpoints(orgId: string, environment: 'test' | 'live') {
  return useQuery({
    queryKey: ['operator', 'endpoints', orgId, environment],
    queryFn: () =>
      call(
        client.GET('/operator/organizations/{org_id}/webhook-endpoints', {
          params: { path: { org_id: orgId }, query: { environment } },
        }),
      ).then((r) => r.data),
    refetchInterval: 5_000,
  })
}

export function useOrgDeliveries(orgId: string, environment: 'test' | 'live') {
  return useInfiniteQuery({
    queryKey: ['operator', 'deliveries', orgId, environment],
    queryFn: ({ pageParam }) =>
      call(
        client.GET('/operator/organizations/{org_id}/webhook-deliveries', {
          params: {
            path: { org_id: orgId },
            query: { environment, limit: 25, cursor: pageParam || undefined },
          },
        }),
      ),
    initialPageParam: '',
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    refetchInterval: 5_000,
  })
}

export function useRedeliver(orgId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (deliveryId: string) =>
      call(
        client.POST('/operator/webhook-deliveries/{delivery_id}/redeliver', {
          params: { path: { delivery_id: deliveryId } },
        }),
      ),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['operator', 'deliveries', orgId] }),
  })
}

/** Retry now on a failing endpoint of the organization: its next probe goes at once. */
export function useRetryEndpointNow(orgId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (endpointId: string) =>
      call(
        client.POST('/operator/webhook-endpoints/{endpoint_id}/retry-now', {
          params: { path: { endpoint_id: endpointId } },
        }),
      ).then((r) => r.data),
    onSettled: async () => {
      await queryClient.invalidateQueries({ queryKey: ['operator', 'endpoints', orgId] })
      await queryClient.invalidateQueries({ queryKey: ['operator', 'deliveries', orgId] })
    },
  })
}
