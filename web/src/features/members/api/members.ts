import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { call, client, type Member } from '../../../lib/api.ts'

export type Role = Member['role']
export const ROLES: { value: Role; label: string }[] = [
  { value: 'owner', label: 'Owner' },
  { value: 'developer', label: 'Developer' },
  { value: 'viewer', label: 'Viewer' },
]

const MEMBERS_KEY = ['members'] as const
const INVITATIONS_KEY = ['invitations'] as const

export function useMembers() {
  return useQuery({
    queryKey: MEMBERS_KEY,
    queryFn: () => call(client.GET('/members')).then((r) => r.data),
  })
}

export function useInvitations(enabled: boolean) {
  return useQuery({
    queryKey: INVITATIONS_KEY,
    queryFn: () => call(client.GET('/invitations')).then((r) => r.data),
    enabled,
  })
}

export function useInvite() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: { email: string; role: Role }) =>
      call(client.POST('/invitations', { body: input })).then((r) => r.data),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: INVITATIONS_KEY }),
  })
}

export function useChangeRole() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: { id: string; role: Role }) =>
      call(
        client.PATCH('/members/{member_id}', {
          params: { path: { member_id: input.id } },
          body: { role: input.role },
        }),
      ),
    onSettled: () => queryClient.invalidateQueries({ queryKey: MEMBERS_KEY }),
  })
}

export function useRemoveMember() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (id: string) =>
      call(client.DELETE('/members/{member_id}', { params: { path: { member_id: id } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: MEMBERS_KEY }),
  })
}

/** Revokes a pending invitation: its link stops working at once. */
export function useRevokeInvitation() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (id: string) =>
      call(client.DELETE('/invitations/{invitation_id}', { params: { path: { invitation_id: id } } })),
    // A 404 (accepted or revoked meanwhile) also means the list is out of date.
    onSettled: () => queryClient.invalidateQueries({ queryKey: INVITATIONS_KEY }),
  })
}

/** A password reset link for a member, shown once: it works once within the hour and ends their sessions. */
export function useIssuePasswordReset() {
  return useMutation({
    mutationFn: (id: string) =>
      call(client.POST('/members/{member_id}/password-reset', { params: { path: { member_id: id } } })).then(
        (r) => r.data,
      ),
  })
}
