import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { call, client, type SignedIn, setCsrfToken } from '../../../lib/api.ts'

export const SESSION_KEY = ['session'] as const

/** Who is signed in: a member (member set) or an operator (operator set). */
export type SignedInAccount = SignedIn

async function fetchAccount(): Promise<SignedInAccount | null> {
  const { data: state } = await call(client.GET('/session'))
  setCsrfToken(state.csrf_token)
  const { kind, member, operator } = state
  return kind ? { kind, member, operator } : null
}

/** The signed-in account, member or operator, or null. */
export function useAccount() {
  return useQuery({ queryKey: SESSION_KEY, queryFn: fetchAccount, staleTime: 60_000 })
}

/** The signed-in member, or null (also for an operator, who is no member). */
export function useSession() {
  return useQuery({
    queryKey: SESSION_KEY,
    queryFn: fetchAccount,
    staleTime: 60_000,
    select: (account) => account?.member ?? null,
  })
}

const INVITATION_KEY = 'invitation'
const PASSWORD_RESET_KEY = 'password-reset'

/**
 * After the session changes: drop every cached answer of the previous one.
 * The invitation being accepted (or the reset link being used) is kept: its page is still mounted when the
 * session changes, and a dropped query would be fetched again by its observer,
 * looking up a token that accepting just consumed (a 404 in the console).
 */
function signedInAs(queryClient: QueryClient, account: SignedInAccount | null) {
  queryClient.removeQueries({
    predicate: (q) =>
      q.queryKey[0] !== SESSION_KEY[0] &&
      q.queryKey[0] !== INVITATION_KEY &&
      q.queryKey[0] !== PASSWORD_RESET_KEY,
  })
  queryClient.setQueryData(SESSION_KEY, account)
}

export function useSignIn() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: { email: string; password: string }) =>
      call(client.POST('/sign-in', { body: input })),
    onSuccess: (res) => signedInAs(queryClient, res.data),
  })
}

export function useSignOut() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: () => call(client.POST('/sign-out')),
    onSettled: () => signedInAs(queryClient, null),
  })
}

export function useInvitation(token: string) {
  return useQuery({
    queryKey: [INVITATION_KEY, token],
    queryFn: () => call(client.POST('/invitations/lookup', { body: { token } })),
    enabled: token !== '',
    retry: false,
  })
}

export function useAcceptInvitation() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: { token: string; password: string }) =>
      call(client.POST('/invitations/accept', { body: input })),
    onSuccess: (res) => signedInAs(queryClient, res.data),
  })
}

/** Whose password a reset link sets (404 password_reset_invalid for a used, replaced or expired one). */
export function usePasswordReset(token: string) {
  return useQuery({
    queryKey: [PASSWORD_RESET_KEY, token],
    queryFn: () => call(client.POST('/password-resets/lookup', { body: { token } })),
    enabled: token !== '',
    retry: false,
  })
}

/** Sets the new password with the link: every other session of the account ends, this one starts. */
export function useResetPassword() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: { token: string; password: string }) =>
      call(client.POST('/password-resets/use', { body: input })),
    onSuccess: (res) => signedInAs(queryClient, res.data),
  })
}
