import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import type { paths } from '../../../generated/dashboard-api.ts'
import { call, client } from '../../../lib/api.ts'

/** Unmatched skus come from orders, which keep arriving. */
const POLL_MS = 5_000
const PRODUCTS_KEY = ['products'] as const
const UNMATCHED_KEY = ['products', 'unmatched-skus'] as const

export function useProducts() {
  return useQuery({
    queryKey: PRODUCTS_KEY,
    queryFn: () => call(client.GET('/products')).then((r) => r.data),
  })
}

export function useUnmatchedSkus() {
  return useQuery({
    queryKey: UNMATCHED_KEY,
    queryFn: () => call(client.GET('/products/unmatched-skus')).then((r) => r.data),
    refetchInterval: POLL_MS,
  })
}

export function useCreateProduct() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: { sku: string; name: string }) =>
      call(client.POST('/products', { body: input })).then((r) => r.data),
    // The catalog, the unmatched skus and any order page shown change with it.
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: PRODUCTS_KEY }),
        queryClient.invalidateQueries({ queryKey: ['order'] }),
      ]),
  })
}

/** What the print-spec route takes: one spec for every file, one per file role, or null to remove them. */
export type PrintSpecsInput =
  paths['/products/{product_id}/print-spec']['put']['requestBody']['content']['application/json']['print_spec']

export function useSetPrintSpecs() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: { productId: string; printSpec: PrintSpecsInput }) =>
      call(
        client.PUT('/products/{product_id}/print-spec', {
          params: { path: { product_id: input.productId } },
          body: { print_spec: input.printSpec },
        }),
      ).then((r) => r.data),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: PRODUCTS_KEY }),
  })
}

/** A product's lead time in working days (null: the platform's default); its open orders are dated again. */
export function useSetLeadTime() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: { productId: string; leadTimeDays: number | null }) =>
      call(
        client.PUT('/products/{product_id}/lead-time', {
          params: { path: { product_id: input.productId } },
          body: { lead_time_days: input.leadTimeDays },
        }),
      ).then((r) => r.data),
    // Its open orders' due dates change with it.
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: PRODUCTS_KEY }),
        queryClient.invalidateQueries({ queryKey: ['order'] }),
      ]),
  })
}
