import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { SCOPE_PERMITS, SCOPES } from '../../../../../src/http/principal.ts'
import { type CreateApiKeyBody, call, client } from '../../../lib/api.ts'

export { SCOPE_PERMITS, SCOPES }

const KEYS = ['api-keys'] as const

export function useApiKeys() {
  return useQuery({
    queryKey: KEYS,
    queryFn: () => call(client.GET('/api-keys')).then((r) => r.data),
    // "Last used" is stored at most once a minute: reading it every 30 s keeps it current.
    refetchInterval: 30_000,
  })
}

export function useCreateApiKey() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: CreateApiKeyBody) =>
      call(client.POST('/api-keys', { body: input })).then((r) => r.data),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEYS }),
  })
}

export function useRevokeApiKey() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (id: string) =>
      call(client.DELETE('/api-keys/{key_id}', { params: { path: { key_id: id } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: KEYS }),
  })
}
