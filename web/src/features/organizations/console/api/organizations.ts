import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { type Answer, call, client } from '../../../../lib/api.ts'

/**
 * The console's calls about organizations themselves (/dashboard/api/operator/organizations
 * and /operator/statistics); each section of an organization's page calls its own feature's.
 */
export type OrganizationSummary = Answer<'/operator/organizations'>['data'][number]

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
      call(client.GET('/operator/organizations/{org_id}', { params: { path: { org_id: id } } })).then(
        (r) => r.data.organization,
      ),
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

export function usePlatformStats() {
  return useQuery({
    queryKey: ['operator', 'statistics'],
    queryFn: () => call(client.GET('/operator/statistics')).then((r) => r.data),
    refetchInterval: 5_000,
  })
}
