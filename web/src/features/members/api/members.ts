import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { api, type Invitation, type InvitationCreated, type Member } from '../../../lib/api.ts'

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
    queryFn: () => api<{ data: Member[] }>('GET', '/members').then((r) => r.data),
  })
}

export function useInvitations(enabled: boolean) {
  return useQuery({
    queryKey: INVITATIONS_KEY,
    queryFn: () => api<{ data: Invitation[] }>('GET', '/invitations').then((r) => r.data),
    enabled,
  })
}

export function useInvite() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: { email: string; role: Role }) =>
      api<InvitationCreated>('POST', '/invitations', input).then((r) => r.data),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: INVITATIONS_KEY }),
  })
}

export function useChangeRole() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: { id: string; role: Role }) =>
      api<{ data: { member: Member } }>('PATCH', `/members/${input.id}`, { role: input.role }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: MEMBERS_KEY }),
  })
}

export function useRemoveMember() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (id: string) => api<{ data: { member: Member } }>('DELETE', `/members/${id}`),
    onSettled: () => queryClient.invalidateQueries({ queryKey: MEMBERS_KEY }),
  })
}

/** Revokes a pending invitation: its link stops working at once. */
export function useRevokeInvitation() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (id: string) => api<{ data: { invitation: Invitation } }>('DELETE', `/invitations/${id}`),
    // A 404 (accepted or revoked meanwhile) also means the list is out of date.
    onSettled: () => queryClient.invalidateQueries({ queryKey: INVITATIONS_KEY }),
  })
}
