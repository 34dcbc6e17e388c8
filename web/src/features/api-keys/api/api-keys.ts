import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { SCOPES } from '../../../../../src/http/principal.ts'
import { type ApiKey, type ApiKeyCreated, api, type CreateApiKeyBody } from '../../../lib/api.ts'

export { SCOPES }

const KEYS = ['api-keys'] as const

export function useApiKeys() {
  return useQuery({
    queryKey: KEYS,
    queryFn: () => api<{ data: ApiKey[] }>('GET', '/api-keys').then((r) => r.data),
    // "Last used" is stored at most once a minute: reading it every 30 s keeps it current.
    refetchInterval: 30_000,
  })
}

export function useCreateApiKey() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: CreateApiKeyBody) =>
      api<ApiKeyCreated>('POST', '/api-keys', input).then((r) => r.data),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEYS }),
  })
}

export function useRevokeApiKey() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (id: string) => api<{ data: { api_key: ApiKey } }>('DELETE', `/api-keys/${id}`),
    onSettled: () => queryClient.invalidateQueries({ queryKey: KEYS }),
  })
}
