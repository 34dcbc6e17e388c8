import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { api, type Session } from '../../../lib/api.ts'

const SESSIONS_KEY = ['account', 'sessions'] as const

export function useSessions() {
  return useQuery({
    queryKey: SESSIONS_KEY,
    queryFn: () => api<{ data: Session[] }>('GET', '/account/sessions').then((r) => r.data),
  })
}

export function useSignOutOthers() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: () =>
      api<{ data: { sessions_ended: number } }>('POST', '/account/sessions/sign-out-others').then(
        (r) => r.data,
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: SESSIONS_KEY }),
  })
}

export function useChangePassword() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: { current_password: string; new_password: string }) =>
      api<{ data: { sessions_ended: number } }>('POST', '/account/password', input).then((r) => r.data),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: SESSIONS_KEY }),
  })
}
