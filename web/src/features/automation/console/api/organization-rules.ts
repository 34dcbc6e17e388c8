import { useQuery } from '@tanstack/react-query'
import { call, client } from '../../../../lib/api.ts'

/** An organization's automation rules, read only in the console. */
export function useOrgRules(orgId: string) {
  return useQuery({
    queryKey: ['operator', 'automation-rules', orgId],
    queryFn: () =>
      call(
        client.GET('/operator/organizations/{org_id}/automation-rules', {
          params: { path: { org_id: orgId } },
        }),
      ).then((r) => r.data),
    refetchInterval: 5_000,
  })
}
