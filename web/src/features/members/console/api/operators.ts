import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { call, client } from '../../../../lib/api.ts'

/** The operator console's calls about operator accounts (/dashboard/api/operator/operators...). */
const OPERATORS_KEY = ['operator', 'operators'] as const
const OPERATOR_INVITATIONS_KEY = ['operator', 'operator-invitations'] as const

export function useOperators() {
  return useQuery({
    queryKey: OPERATORS_KEY,
    queryFn: () => call(client.GET('/operator/operators')).then((r) => r.data),
  })
}

export function useOperatorInvitations() {
  return useQuery({
    queryKey: OPERATOR_INVITATIONS_KEY,
    queryFn: () => call(client.GET('/operator/operators/invitations')).then((r) => r.data),
  })
}

export function useInviteOperator() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (email: string) =>
      call(client.POST('/operator/operators/invitations', { body: { email } })).then((r) => r.data),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: OPERATOR_INVITATIONS_KEY }),
  })
}

export function useRevokeOperatorInvitation() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (id: string) =>
      call(
        client.DELETE('/operator/operators/invitations/{invitation_id}', {
          params: { path: { invitation_id: id } },
        }),
      ),
    onSettled: () => queryClient.invalidateQueries({ queryKey: OPERATOR_INVITATIONS_KEY }),
  })
}

/** Removes another operator account: its sessions end at once. */
export function useRemoveOperator() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (id: string) =>
      call(
        client.DELETE('/operator/operators/{operator_id}', { params: { path: { operator_id: id } } }),
      ).then((r) => r.data),
    onSettled: () => queryClient.invalidateQueries({ queryKey: OPERATORS_KEY }),
  })
}

/** A password reset link for another operator account, shown once. */
export function useIssueOperatorPasswordReset() {
  return useMutation({
    mutationFn: (id: string) =>
      call(
        client.POST('/operator/operators/{operator_id}/password-reset', {
          params: { path: { operator_id: id } },
        }),
      ).then((r) => r.data),
  })
}
