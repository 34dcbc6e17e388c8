import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { type Answer, call, client, type Input } from '../../../../lib/api.ts'
import type { AuditFilter } from '../../../audit-log/components/audit-filters.tsx'

/** The operator console's calls about organizations (/dashboard/api/operator/...). */
export type OrganizationSummary = Answer<'/operator/organizations'>['data'][number]
export type ShopOrder = Input<'/operator/organizations/{org_id}/shop-orders', 'post'>

const org = (orgId: string) => ({ params: { path: { org_id: orgId } } })

export function useOrganizations() {
  return useQuery({
    queryKey: ['operator', 'organizations'],
    queryFn: () => call(client.GET('/operator/organizations')).then((r) => r.data),
    refetchInterval: 5_000,
  })
}

export function useOrganization(id: string) {
  return useQuery({
    queryKey: ['operator', 'organizations', id],
    queryFn: () =>
      call(client.GET('/operator/organizations/{org_id}', org(id))).then((r) => r.data.organization),
    refetchInterval: 5_000,
  })
}

export function useCreateOrganization() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (name: string) =>
      call(client.POST('/operator/organizations', { body: { name } })).then((r) => r.data.organization),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['operator', 'organizations'] }),
  })
}

export function useInviteOwner() {
  return useMutation({
    mutationFn: (input: { orgId: string; email: string }) =>
      call(
        client.POST('/operator/organizations/{org_id}/invitations', {
          ...org(input.orgId),
          body: { email: input.email },
        }),
      ).then((r) => r.data),
  })
}

export function useOrgKeys(orgId: string) {
  return useQuery({
    queryKey: ['operator', 'keys', orgId],
    queryFn: () =>
      call(client.GET('/operator/organizations/{org_id}/api-keys', org(orgId))).then((r) => r.data),
  })
}

export function useRevokeOrgKey(orgId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (keyId: string) =>
      call(
        client.DELETE('/operator/organizations/{org_id}/api-keys/{key_id}', {
          params: { path: { org_id: orgId, key_id: keyId } },
        }),
      ),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['operator', 'keys', orgId] }),
  })
}

export function useOrgMembers(orgId: string) {
  return useQuery({
    queryKey: ['operator', 'members', orgId],
    queryFn: () =>
      call(client.GET('/operator/organizations/{org_id}/members', org(orgId))).then((r) => r.data),
  })
}

export function useOrgRules(orgId: string) {
  return useQuery({
    queryKey: ['operator', 'automation-rules', orgId],
    queryFn: () =>
      call(client.GET('/operator/organizations/{org_id}/automation-rules', org(orgId))).then((r) => r.data),
    refetchInterval: 5_000,
  })
}

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

export function useCreateShopOrder() {
  return useMutation({
    mutationFn: (input: { orgId: string; body: ShopOrder }) =>
      call(
        client.POST('/operator/organizations/{org_id}/shop-orders', {
          ...org(input.orgId),
          body: input.body,
        }),
      ).then((r) => r.data),
  })
}

export function usePlatformStats() {
  return useQuery({
    queryKey: ['operator', 'statistics'],
    queryFn: () => call(client.GET('/operator/statistics')).then((r) => r.data),
    refetchInterval: 5_000,
  })
}

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
