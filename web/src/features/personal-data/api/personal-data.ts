import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { type Answer, call, client, type Input } from '../../../lib/api.ts'

/** Whose data: the member's own organization, or (an operator) the organization named. */
export type Scope = { orgId?: string }

export type CustomerQuery = Input<'/personal-data/preview', 'post'>
export type ErasureInput = Input<'/personal-data/erasures', 'post'>
export type Preview = Answer<'/personal-data/preview', 'post'>['data']
export type Erasure = Answer<'/personal-data/erasures', 'post'>['data']
export type Retention = Answer<'/retention'>['data']

const org = (orgId: string) => ({ params: { path: { org_id: orgId } } })

/** What an erasure of the customer would remove (a POST: the search stays out of the address). */
export function usePreview(scope: Scope) {
  return useMutation({
    mutationFn: (body: CustomerQuery): Promise<Preview> =>
      (scope.orgId
        ? call(
            client.POST('/operator/organizations/{org_id}/personal-data/preview', {
              ...org(scope.orgId),
              body,
            }),
          )
        : call(client.POST('/personal-data/preview', { body }))
      ).then((r) => r.data),
  })
}

export function useErase(scope: Scope) {
  return useMutation({
    mutationFn: (body: ErasureInput): Promise<Erasure> =>
      (scope.orgId
        ? call(
            client.POST('/operator/organizations/{org_id}/personal-data/erasures', {
              ...org(scope.orgId),
              body,
            }),
          )
        : call(client.POST('/personal-data/erasures', { body }))
      ).then((r) => r.data),
  })
}

/** The export, saved as the JSON file the service names. */
export function useExport(scope: Scope) {
  return useMutation({
    mutationFn: async (body: CustomerQuery) => {
      const file = await (scope.orgId
        ? call(
            client.POST('/operator/organizations/{org_id}/personal-data/exports', {
              ...org(scope.orgId),
              body,
            }),
          )
        : call(client.POST('/personal-data/exports', { body })))
      const name = `personal-data-${file.exported_at.slice(0, 10)}.json`
      const url = URL.createObjectURL(new Blob([JSON.stringify(file, null, 2)], { type: 'application/json' }))
      const link = document.createElement('a')
      link.href = url
      link.download = name
      link.click()
      setTimeout(() => URL.revokeObjectURL(url), 60_000)
      return { name, orders: file.orders.length }
    },
  })
}

const retentionKey = (scope: Scope) => ['retention', scope.orgId ?? 'own'] as const

export function useRetention(scope: Scope, enabled = true) {
  return useQuery({
    queryKey: retentionKey(scope),
    enabled,
    queryFn: () =>
      (scope.orgId
        ? call(client.GET('/operator/organizations/{org_id}/retention', org(scope.orgId)))
        : call(client.GET('/retention'))
      ).then((r) => r.data),
  })
}

export function useSetRetention(scope: Scope) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (body: Retention) =>
      (scope.orgId
        ? call(client.PUT('/operator/organizations/{org_id}/retention', { ...org(scope.orgId), body }))
        : call(client.PUT('/retention', { body }))
      ).then((r) => r.data),
    onSuccess: (data) => queryClient.setQueryData(retentionKey(scope), data),
  })
}
