import { useMutation, useQuery } from '@tanstack/react-query'
import { call, client } from '../../../../lib/api.ts'

/** An organization's members as the console sees them, and the invitation of an owner. */
export function useOrgMembers(orgId: string) {
  return useQuery({
    queryKey: ['operator', 'members', orgId],
    queryFn: () =>
      call(
        client.GET('/operator/organizations/{org_id}/members', { params: { path: { org_id: orgId } } }),
      ).then((r) => r.data),
  })
}

export function useInviteOwner() {
  return useMutation({
    mutationFn: (input: { orgId: string; email: string }) =>
      call(
        client.POST('/operator/organizations/{org_id}/invitations', {
          params: { path: { org_id: input.orgId } },
          body: { email: input.email },
        }),
      ).then((r) => r.data),
  })
}

/** A password reset link for a member of the organization, shown once. */
export function useIssueMemberPasswordReset(orgId: string) {
  return useMutation({
    mutationFn: (memberId: string) =>
      call(
        client.POST('/operator/organizations/{org_id}/members/{member_id}/password-reset', {
          params: { path: { org_id: orgId, member_id: memberId } },
        }),
      ).then((r) => r.data),
  })
}
