import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { call, client } from '../../../lib/api.ts'

const SESSIONS_KEY = ['account', 'sessions'] as const

export function useSessions() {
  return useQuery({
    queryKey: SESSIONS_KEY,
    queryFn: () => call(client.GET('/account/sessions')).then((r) => r.data),
  })
}

export function useSignOutOthers() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: () => call(client.POST('/account/sessions/sign-out-others')).then((r) => r.data),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: SESSIONS_KEY }),
  })
}

export function useChangePassword() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: { current_password: string; new_password: string }) =>
      call(client.POST('/account/password', { body: input })).then((r) => r.data),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: SESSIONS_KEY }),
  })
}
