import {
  keepPreviousData,
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query'
import { PRODUCTION_STATUS_WORDS } from '../../../../components/order-statuses.ts'
import { type Answer, call, client, filled, type Query } from '../../../../lib/api.ts'

/** The production board's calls (/dashboard/api/operator/production...). */
export type BoardPage = Answer<'/operator/production'>
export type BoardEntry = BoardPage['data'][number]
export type BoardCounts = NonNullable<BoardPage['counts']>
export type ProductionOrderPage = Answer<'/operator/production-orders/{production_order_id}'>['data']
export type ProductionItem = ProductionOrderPage['order']['items'][number]
export type ProductionFile = ProductionItem['files'][number]
export type ProducedEvents = Answer<'/operator/production-jobs/{job_id}/complete', 'post'>['data']['events']

export const PRODUCTION_STATUSES = (
  ['pending', 'in_progress', 'completed', 'failed', 'cancelled'] as const
).map((s) => [s, PRODUCTION_STATUS_WORDS[s]!] as const) satisfies readonly (readonly [
  NonNullable<Query<'/operator/production'>['status']>,
  string,
])[]
export type ProductionStatus = (typeof PRODUCTION_STATUSES)[number][0]
export const PRODUCTION_STATUS_COLOR: Record<string, string> = {
  pending: 'yellow',
  in_progress: 'blue',
  completed: 'green',
  failed: 'red',
  cancelled: 'gray',
}
/** A production status in words (its code where it has none). */
export const productionStatusLabel = (s: string) => PRODUCTION_STATUS_WORDS[s] ?? s

export interface BoardFilters {
  /** A production status, or the orders held for review (pending, shown apart). */
  status: ProductionStatus | 'held'
  tag: string
  organization_id: string
  partner: '' | 'true' | 'false'
  older_than_minutes: string
  /** 'problem' or 'warning': the print check's verdict, '' for any. */
  preflight: '' | 'problem' | 'warning'
  /** 'late' (open and past due) or 'today', in the production calendar; '' for any. */
  due: '' | 'late' | 'today'
  /** Due on or before this day (YYYY-MM-DD), '' for any; the service reads `due` first. */
  due_by: string
  /** 'none' (in no batch), 'any' (in one), a batch's id (its orders), '' for all. */
  batch: string
}

/** The production board: polled every 5 seconds, so other operators' changes appear. */
export function useBoard(filters: BoardFilters) {
  return useInfiniteQuery({
    queryKey: ['operator', 'board', filters],
    queryFn: ({ pageParam }) =>
      call(
        client.GET('/operator/production', {
          params: {
            query: {
              ...filled({
                status: filters.status === 'held' ? undefined : filters.status,
                organization_id: filters.organization_id,
                tag: filters.tag.trim(),
                cursor: pageParam,
              }),
              held: filters.status === 'held' ? true : undefined,
              preflight: filters.preflight || undefined,
              due: filters.due || undefined,
              due_by: filters.due || !filters.due_by ? undefined : filters.due_by,
              batch: filters.batch || undefined,
              partner: filters.partner === '' ? undefined : filters.partner === 'true',
              older_than_minutes:
                filters.older_than_minutes === '' ? undefined : Number(filters.older_than_minutes),
              limit: 25,
            },
          },
        }),
      ),
    initialPageParam: '',
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    placeholderData: keepPreviousData,
    refetchInterval: 5_000,
  })
}

export type ProductionAction =
  | {
      kind: 'status'
      productionOrderId: string
      status: ProductionStatus
      expected: ProductionStatus
      /** Why (a failure's cause), for the audit log. */
      reason?: string
    }
  | { kind: 'partner'; productionOrderId: string; value: boolean; expected: ProductionStatus }
  | { kind: 'job'; jobId: string; expected: ProductionStatus }
  | { kind: 'cancel'; orderId: string; expected: ProductionStatus }

/** Does `action`; at a station, `stationId` names it in the audit entry. */
async function perform(action: ProductionAction, stationId?: string): Promise<ProducedEvents> {
  const expected_status = action.expected
  const at = stationId ? { station_id: stationId } : {}
  const events = (answer: { data: { events: ProducedEvents } }) => answer.data.events
  switch (action.kind) {
    case 'status':
      return call(
        client.POST('/operator/production-orders/{production_order_id}/status', {
          params: { path: { production_order_id: action.productionOrderId } },
          body: {
            status: action.status,
            expected_status,
            ...at,
            ...(action.reason ? { reason: action.reason } : {}),
          },
        }),
      ).then(events)
    case 'partner':
      return call(
        client.POST('/operator/production-orders/{production_order_id}/partner', {
          params: { path: { production_order_id: action.productionOrderId } },
          body: { produced_by_partner: action.value, expected_status, ...at },
        }),
      ).then(events)
    case 'job':
      return call(
        client.POST('/operator/production-jobs/{job_id}/complete', {
          params: { path: { job_id: action.jobId } },
          body: { expected_status, ...at },
        }),
      ).then(events)
    case 'cancel':
      return call(
        client.POST('/operator/orders/{order_id}/cancel', {
          params: { path: { order_id: action.orderId } },
          body: { expected_status, ...at },
        }),
      ).then(events)
  }
}

export function useProductionAction(stationId?: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (action: ProductionAction) => perform(action, stationId),
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: ['operator', 'board'] }),
        queryClient.invalidateQueries({ queryKey: ['operator', 'production-order'] }),
        queryClient.invalidateQueries({ queryKey: ['operator', 'batch'] }),
      ]),
  })
}

/** One production order with its order, files and history; polled like the board. */
export function useProductionOrder(id: string, options: { poll?: boolean; enabled?: boolean } = {}) {
  return useQuery({
    queryKey: ['operator', 'production-order', id],
    queryFn: () =>
      call(
        client.GET('/operator/production-orders/{production_order_id}', {
          params: { path: { production_order_id: id } },
        }),
      ).then((r) => r.data),
    refetchInterval: options.poll === false ? false : 5_000,
    enabled: options.enabled ?? true,
    retry: false,
  })
}

/** A file of the production order's order, through the operator's session. */
export const productionFileUrl = (productionOrderId: string, uploadId: string) =>
  `/dashboard/api/operator/production-orders/${encodeURIComponent(productionOrderId)}/files/${encodeURIComponent(uploadId)}`
