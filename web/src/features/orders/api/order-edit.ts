import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { type Answer, ApiError, call, client, type Input } from '../../../lib/api.ts'
import { ORDER_POLL_MS } from './order.ts'

/**
 * Changing an accepted order: the member's order page (/orders/...) and the
 * operator's (/operator/orders/...) make the same changes through their own
 * routes; `who` picks them.
 */
export type Editor = 'member' | 'operator'
export type OrderChange = Input<'/orders/{order_id}/changes', 'post'>
export type ItemChange = NonNullable<OrderChange['items']>[number]
export type HistoryEntry = Answer<'/orders/{order_id}/history'>['data'][number]

const path = { params: { path: { order_id: '' } } }
const on = (orderId: string) => ({ params: { path: { order_id: orderId } } }) satisfies typeof path

export const historyKey = (who: Editor, id: string) => ['order', id, 'history', who] as const

export function useOrderHistory(who: Editor, orderId: string) {
  return useQuery({
    queryKey: historyKey(who, orderId),
    queryFn: () =>
      call(
        who === 'member'
          ? client.GET('/orders/{order_id}/history', on(orderId))
          : client.GET('/operator/orders/{order_id}/history', on(orderId)),
      ).then((r) => r.data),
    refetchInterval: ORDER_POLL_MS,
    retry: false,
  })
}

/**
 * Sends a file's bytes to its upload slot. The service's own signed address is
 * reached through the page's origin (the dashboard is served by the service);
 * a bucket's address is used as it is.
 */
async function putBytes(uploadUrl: string, file: File): Promise<void> {
  const url = new URL(uploadUrl)
  const own = /^\/v1\/uploads\/[^/]+\/content$/.test(url.pathname)
  const response = await fetch(own ? `${url.pathname}${url.search}` : uploadUrl, {
    method: 'PUT',
    body: file,
  })
  if (!response.ok) {
    throw new ApiError(
      response.status,
      'upload_failed',
      `The file could not be sent (HTTP ${response.status}).`,
    )
  }
}

/** The order page's changes: each invalidates the order, its history and its timeline. */
export function useOrderEdits(who: Editor, orderId: string) {
  const queryClient = useQueryClient()
  const refresh = () =>
    queryClient
      .invalidateQueries({ queryKey: who === 'member' ? ['order', orderId] : ['operator', 'order', orderId] })
      .then(() => queryClient.invalidateQueries({ queryKey: ['order', orderId] }))

  const change = useMutation({
    mutationFn: (body: OrderChange) =>
      call(
        who === 'member'
          ? client.POST('/orders/{order_id}/changes', { ...on(orderId), body })
          : client.POST('/operator/orders/{order_id}/changes', { ...on(orderId), body }),
      ).then((r) => r.data),
    onSettled: refresh,
  })

  const addFile = useMutation({
    mutationFn: async (input: { expected: string; itemId: string; file: File; role: string }) => {
      const body = { filename: input.file.name }
      const slot = await call(
        who === 'member'
          ? client.POST('/orders/{order_id}/uploads', { ...on(orderId), body })
          : client.POST('/operator/orders/{order_id}/uploads', { ...on(orderId), body }),
      )
      await putBytes(slot.data.upload_url, input.file)
      const role = input.role.trim()
      return change.mutateAsync({
        expected_updated_at: input.expected,
        items: [
          {
            id: input.itemId,
            add_files: [{ upload_id: slot.data.upload_id, ...(role ? { role } : {}) }],
          },
        ],
      })
    },
  })

  const cancel = useMutation({
    mutationFn: (input: { expected: string; productionStatus: string }) =>
      who === 'member'
        ? call(
            client.POST('/orders/{order_id}/cancel', {
              ...on(orderId),
              body: { expected_updated_at: input.expected },
            }),
          )
        : call(
            client.POST('/operator/orders/{order_id}/cancel', {
              ...on(orderId),
              body: {
                expected_status: input.productionStatus as 'pending',
              },
            }),
          ),
    onSettled: refresh,
  })

  const release = useMutation({
    mutationFn: (input: { expected: string }) => {
      const options = { ...on(orderId), body: { expected_updated_at: input.expected } }
      return call(
        who === 'member'
          ? client.POST('/orders/{order_id}/release', options)
          : client.POST('/operator/orders/{order_id}/release', options),
      )
    },
    onSettled: refresh,
  })

  return { change, addFile, cancel, release }
}
