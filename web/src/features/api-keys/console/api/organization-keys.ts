import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { call, client } from '../../../../lib/api.ts'

/** An organization's API keys as the console sees them; an operator revokes one. */
export function useOrgKeys(orgId: string) {
  return useQuery({
    queryKey: ['operator', 'keys', orgId],
    queryFn: () =>
      call(
        client.GET('/operator/organizations/{org_id}/api-keys', { params: { path: { org_id: orgId } } }),
      ).then((r) => r.data),
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
