import { useMutation } from '@tanstack/react-query'
import { call, client, type Input } from '../../../../lib/api.ts'

/** Shop orders: entered by an operator for an organization (/dashboard/api/operator/organizations/.../shop-orders). */
export type ShopOrder = Input<'/operator/organizations/{org_id}/shop-orders', 'post'>

export function useCreateShopOrder() {
  return useMutation({
    mutationFn: (input: { orgId: string; body: ShopOrder }) =>
      call(
        client.POST('/operator/organizations/{org_id}/shop-orders', {
          params: { path: { org_id: input.orgId } },
          body: input.body,
        }),
      ).then((r) => r.data),
  })
}
