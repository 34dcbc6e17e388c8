import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { type Answer, call, client, type Input } from '../../../../lib/api.ts'

/** The console's batches (/dashboard/api/operator/batches...): production orders made together. */
export type Batch = Answer<'/operator/batches'>['data'][number]
export type BatchStatus = Batch['status']
export type BatchDetail = Answer<'/operator/batches/{batch_id}'>['data']
export type BatchOrder = BatchDetail['orders'][number]
export type BatchProduct = BatchDetail['products'][number]
export type BatchLine = BatchProduct['lines'][number]
export type BatchActed = Answer<'/operator/batches/{batch_id}/start', 'post'>['data']
export type BatchResult = BatchActed['results'][number]
/** Which orders: these ids, or every joinable one matching a selection. */
export type BatchOrders = Input<'/operator/batches/{batch_id}/orders', 'post'>
export type BatchAction = 'start' | 'complete' | 'fail'

export const BATCH_STATUSES = [
  ['open', 'Open'],
  ['in_progress', 'In production'],
  ['completed', 'Completed'],
  ['failed', 'Failed'],
] as const satisfies readonly (readonly [BatchStatus, string])[]
export const batchStatusLabel = (s: string) => BATCH_STATUSES.find(([k]) => k === s)?.[1] ?? s
export const BATCH_STATUS_COLOR: Record<string, string> = {
  open: 'yellow',
  in_progress: 'blue',
  completed: 'green',
  failed: 'red',
}

/** Batches newest first, of one status or all (''), paged on with next_cursor. */
export function useBatches(status: BatchStatus | '') {
  return useInfiniteQuery({
    queryKey: ['operator', 'batches', status],
    queryFn: ({ pageParam }) =>
      call(
        client.GET('/operator/batches', {
          params: { query: { status: status || undefined, cursor: pageParam || undefined, limit: 25 } },
        }),
      ),
    initialPageParam: '',
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    refetchInterval: 10_000,
  })
}

/** The open batches (the 100 newest), for adding orders to one. */
export function useOpenBatches(enabled: boolean) {
  return useQuery({
    queryKey: ['operator', 'batches', 'open', 'choices'],
    queryFn: () =>
      call(client.GET('/operator/batches', { params: { query: { status: 'open', limit: 100 } } })).then(
        (r) => r.data,
      ),
    enabled,
  })
}

/** One batch with its orders and their items by product; polled like the board. */
export function useBatch(id: string, options: { poll?: boolean; enabled?: boolean } = {}) {
  return useQuery({
    queryKey: ['operator', 'batch', id],
    queryFn: () =>
      call(client.GET('/operator/batches/{batch_id}', { params: { path: { batch_id: id } } })).then(
        (r) => r.data,
      ),
    refetchInterval: options.poll === false ? false : 5_000,
    enabled: options.enabled ?? true,
    retry: false,
  })
}

/** After a change: the board, the lists, the batch and the production orders read again. */
function useRefresh() {
  const queryClient = useQueryClient()
  return () =>
    Promise.all(
      ['board', 'batches', 'batch', 'production-order'].map((key) =>
        queryClient.invalidateQueries({ queryKey: ['operator', key] }),
      ),
    )
}

/** A new batch: its name and its first orders (ids or a selection). */
export function useCreateBatch() {
  const refresh = useRefresh()
  return useMutation({
    mutationFn: (body: { name: string } & BatchOrders) =>
      call(client.POST('/operator/batches', { body })).then((r) => r.data),
    onSettled: refresh,
  })
}

/** Orders joining an open batch. */
export function useAddToBatch() {
  const refresh = useRefresh()
  return useMutation({
    mutationFn: ({ batchId, ...body }: { batchId: string } & BatchOrders) =>
      call(
        client.POST('/operator/batches/{batch_id}/orders', { params: { path: { batch_id: batchId } }, body }),
      ).then((r) => r.data),
    onSettled: refresh,
  })
}

/** An order leaving an open batch. */
export function useRemoveBatchOrder(batchId: string) {
  const refresh = useRefresh()
  return useMutation({
    mutationFn: (productionOrderId: string) =>
      call(
        client.DELETE('/operator/batches/{batch_id}/orders/{production_order_id}', {
          params: { path: { batch_id: batchId, production_order_id: productionOrderId } },
        }),
      ).then((r) => r.data),
    onSettled: refresh,
  })
}

/** Deletes an open batch (its orders are free again). */
export function useDeleteBatch(batchId: string) {
  const refresh = useRefresh()
  return useMutation({
    mutationFn: () =>
      call(client.DELETE('/operator/batches/{batch_id}', { params: { path: { batch_id: batchId } } })).then(
        (r) => r.data.batch,
      ),
    onSettled: refresh,
  })
}

/**
 * Starts, completes or fails a batch: each order moves as its own status
 * change would. At a station, `stationId` names it in the audit entries.
 */
export function useBatchAction(batchId: string, stationId?: string) {
  const refresh = useRefresh()
  return useMutation({
    mutationFn: ({ action, reason }: { action: BatchAction; reason?: string }) => {
      const params = { path: { batch_id: batchId } }
      const at = stationId ? { station_id: stationId } : {}
      const request =
        action === 'start'
          ? client.POST('/operator/batches/{batch_id}/start', { params, body: at })
          : action === 'complete'
            ? client.POST('/operator/batches/{batch_id}/complete', { params, body: at })
            : client.POST('/operator/batches/{batch_id}/fail', {
                params,
                body: reason ? { reason, ...at } : at,
              })
      return call(request).then((r) => r.data)
    },
    onSettled: refresh,
  })
}
