import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import {
  api,
  type InvitationPreview,
  type Member,
  type SessionState,
  setCsrfToken,
} from '../../../lib/api.ts'

export const SESSION_KEY = ['session'] as const

async function fetchSession(): Promise<Member | null> {
  const state = await api<SessionState>('GET', '/session')
  setCsrfToken(state.data.csrf_token)
  return state.data.member
}

/** The signed-in member, or null. */
export function useSession() {
  return useQuery({ queryKey: SESSION_KEY, queryFn: fetchSession, staleTime: 60_000 })
}

/** After the session changes: drop every cached answer of the previous one. */
function signedInAs(queryClient: QueryClient, member: Member | null) {
  queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== SESSION_KEY[0] })
  queryClient.setQueryData(SESSION_KEY, member)
}

export function useSignIn() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: { email: string; password: string }) =>
      api<{ data: { member: Member } }>('POST', '/sign-in', input),
    onSuccess: (res) => signedInAs(queryClient, res.data.member),
  })
}

export function useSignOut() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: () => api('POST', '/sign-out'),
    onSettled: () => signedInAs(queryClient, null),
  })
}

export function useInvitation(token: string) {
  return useQuery({
    queryKey: ['invitation', token],
    queryFn: () => api<InvitationPreview>('POST', '/invitations/lookup', { token }),
    enabled: token !== '',
    retry: false,
  })
}

export function useAcceptInvitation() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: { token: string; password: string }) =>
      api<{ data: { member: Member } }>('POST', '/invitations/accept', input),
    onSuccess: (res) => signedInAs(queryClient, res.data.member),
  })
}
