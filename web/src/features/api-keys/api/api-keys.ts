import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { type CreateApiKeyBody, call, client, keysOf } from '../../../lib/api.ts'

export type Scope = CreateApiKeyBody['scopes'][number]

/**
 * What each scope of the document lets a key do, for a person picking scopes:
 * in the words the API reference uses (docs/api.md, the /v1 document's key).
 */
export const SCOPE_PERMITS: Record<Scope, { label: string; permits: string }> = {
  'orders:read': {
    label: 'Read orders',
    permits: 'GET /v1/orders (the list for polling) and GET /v1/orders/{id}',
  },
  'orders:write': {
    label: 'Create orders',
    permits: 'POST /v1/orders; orders cannot be changed or cancelled through the API',
  },
  'files:write': {
    label: 'Upload files',
    permits: 'POST /v1/uploads, the upload slots for order files (the signed PUT itself needs no key)',
  },
  'webhooks:manage': {
    label: 'Manage webhooks',
    permits:
      'every webhook endpoint operation (register, list, change, delete, test, rotate the secret, replay), the delivery log and redelivery, and the listen stream and trigger',
  },
}
export const SCOPES = keysOf(SCOPE_PERMITS)

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
