import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useSearchParams } from 'react-router'
import { call, client, filled, type Input, keysOf, type Query } from '../../../lib/api.ts'
import { usePageEnvironment } from '../../../lib/environment.ts'

export type Env = 'test' | 'live'
/** The event types of the document: every one the delivery log lists, and those an endpoint takes. */
type EventType = NonNullable<Query<'/webhook-deliveries'>['event_type']>
type FilterableType = Input<'/webhook-endpoints/{endpoint_id}/sample', 'post'>['type']
export const EVENT_TYPES = keysOf<EventType>({
  'order.received': true,
  'order.production_started': true,
  'order.production_completed': true,
  'order.production_failed': true,
  'order.cancelled': true,
  'order_item.completed': true,
  'order.updated': true,
  ping: true,
})
/** Types an endpoint can subscribe to (a ping always reaches it). */
export const FILTERABLE_TYPES = EVENT_TYPES.filter((t): t is FilterableType => t !== 'ping')

/** How often the delivery log and the endpoints' health are read again. */
const POLL_MS = 5000

/** The live/test switch: the URL's query (?environment=test) when set, else the member's last choice. */
export function useEnvironment(): [Env, (env: Env) => void] {
  const [, setParams] = useSearchParams()
  const env = usePageEnvironment()
  const set = (next: Env) =>
    setParams(
      (p) => {
        const copy = new URLSearchParams(p)
        copy.set('environment', next)
        return copy
      },
      { replace: true },
    )
  return [env, set]
}

/** The environment and the endpoint (or delivery) a call is about. */
const endpoint = (env: Env, id: string) => ({
  params: { path: { endpoint_id: id }, query: { environment: env } },
})
const delivery = (env: Env, id: string) => ({
  params: { path: { delivery_id: id }, query: { environment: env } },
})
const endpointsKey = (env: Env) => ['webhook-endpoints', env] as const
const endpointKey = (env: Env, id: string) => ['webhook-endpoint', env, id] as const

export function useEndpoints(env: Env) {
  return useQuery({
    queryKey: endpointsKey(env),
    queryFn: () =>
      call(client.GET('/webhook-endpoints', { params: { query: { environment: env } } })).then((r) => r.data),
    refetchInterval: POLL_MS,
  })
}

export function useEndpoint(env: Env, id: string) {
  return useQuery({
    queryKey: endpointKey(env, id),
    queryFn: () =>
      call(client.GET('/webhook-endpoints/{endpoint_id}', endpoint(env, id))).then((r) => r.data.endpoint),
    refetchInterval: POLL_MS,
  })
}

function useEndpointChange<I, O>(env: Env, id: string | undefined, fn: (input: I) => Promise<O>) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: fn,
    onSettled: async () => {
      await queryClient.invalidateQueries({ queryKey: endpointsKey(env) })
      if (id) await queryClient.invalidateQueries({ queryKey: endpointKey(env, id) })
    },
  })
}

export function useCreateEndpoint(env: Env) {
  return useEndpointChange(env, undefined, (input: Input<'/webhook-endpoints', 'post'>) =>
    call(client.POST('/webhook-endpoints', { params: { query: { environment: env } }, body: input })).then(
      (r) => r.data,
    ),
  )
}

export function useUpdateEndpoint(env: Env, id: string) {
  return useEndpointChange(env, id, (input: Input<'/webhook-endpoints/{endpoint_id}', 'patch'>) =>
    call(client.PATCH('/webhook-endpoints/{endpoint_id}', { ...endpoint(env, id), body: input })),
  )
}

export function useRotateSecret(env: Env, id: string) {
  return useEndpointChange(env, id, (grace_period_seconds: number) =>
    call(
      client.POST('/webhook-endpoints/{endpoint_id}/rotate-secret', {
        ...endpoint(env, id),
        body: { grace_period_seconds },
      }),
    ).then((r) => r.data),
  )
}

export function usePing(env: Env, id: string) {
  return useEndpointChange(env, id, () =>
    call(client.POST('/webhook-endpoints/{endpoint_id}/test', endpoint(env, id))),
  )
}

/** Retry now: a failing endpoint's next probe goes at once (the endpoint and its log are read again). */
export function useRetryNow(env: Env, id: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: () =>
      call(client.POST('/webhook-endpoints/{endpoint_id}/retry-now', endpoint(env, id))).then((r) => r.data),
    onSettled: async () => {
      await queryClient.invalidateQueries({ queryKey: endpointKey(env, id) })
      await queryClient.invalidateQueries({ queryKey: ['webhook-deliveries'] })
    },
  })
}

export function useDeleteEndpoint(env: Env, id: string) {
  return useEndpointChange(env, id, () =>
    call(client.DELETE('/webhook-endpoints/{endpoint_id}', endpoint(env, id))),
  )
}

export type ReplayInput = Input<'/webhook-endpoints/{endpoint_id}/replay', 'post'>
const replayKey = (env: Env, id: string) => ['webhook-replay', env, id] as const

export function useReplay(env: Env, id: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: ReplayInput) =>
      call(
        client.POST('/webhook-endpoints/{endpoint_id}/replay', { ...endpoint(env, id), body: input }),
      ).then((r) => r.data.replay),
    onSuccess: (replay) => queryClient.setQueryData(replayKey(env, id), replay),
  })
}

/** How many events a replay with this input would send; starts nothing. */
export function useReplayPreview(env: Env, id: string) {
  return useMutation({
    mutationFn: (input: ReplayInput) =>
      call(
        client.POST('/webhook-endpoints/{endpoint_id}/replay/preview', { ...endpoint(env, id), body: input }),
      ).then((r) => r.data),
  })
}

/** The endpoint's latest replay (null: never replayed), read again every second while it runs. */
export function useLatestReplay(env: Env, id: string) {
  return useQuery({
    queryKey: replayKey(env, id),
    queryFn: () =>
      call(client.GET('/webhook-endpoints/{endpoint_id}/replay', endpoint(env, id))).then(
        (r) => r.data.replay,
      ),
    refetchInterval: (query) => (query.state.data?.status === 'running' ? 1000 : POLL_MS),
  })
}

export type LogFilters = Partial<
  Record<'status' | 'event_type' | 'event_id' | 'order_id' | 'created_since' | 'created_until', string>
>
/** Filters as the URL carries them: anything else is the service's 400, which the page shows. */
type LogQuery = Query<'/webhook-deliveries'>

/** One page of the delivery log, read again every few seconds so new entries appear. */
export function useDeliveries(env: Env, endpointId: string, filters: LogFilters, cursor: string | undefined) {
  const query = {
    ...filled({ ...filters, cursor }),
    status: (filters.status || undefined) as LogQuery['status'],
    event_type: (filters.event_type || undefined) as LogQuery['event_type'],
    environment: env,
    endpoint_id: endpointId,
    limit: 20,
  }
  return useQuery({
    queryKey: ['webhook-deliveries', query],
    queryFn: () => call(client.GET('/webhook-deliveries', { params: { query } })),
    refetchInterval: POLL_MS,
    placeholderData: keepPreviousData,
  })
}

export function useDelivery(env: Env, id: string | null) {
  return useQuery({
    queryKey: ['webhook-delivery', env, id],
    queryFn: () =>
      call(client.GET('/webhook-deliveries/{delivery_id}', delivery(env, id ?? ''))).then((r) => r.data),
    enabled: id !== null,
    refetchInterval: POLL_MS,
  })
}

/** What a delivery sent: its event body and each attempt's headers (read again while the dialog is open). */
export function useDeliveryPayload(env: Env, id: string | null) {
  return useQuery({
    queryKey: ['webhook-delivery-payload', env, id],
    queryFn: () =>
      call(client.GET('/webhook-deliveries/{delivery_id}/payload', delivery(env, id ?? ''))).then(
        (r) => r.data,
      ),
    enabled: id !== null,
    refetchInterval: POLL_MS,
  })
}

/** One delivery of any organization, for the console: its attempts and what it sent, signatures left out. */
export function useConsoleDelivery(id: string | null) {
  return useQuery({
    queryKey: ['operator', 'webhook-delivery', id],
    queryFn: () =>
      call(
        client.GET('/operator/webhook-deliveries/{delivery_id}', {
          params: { path: { delivery_id: id ?? '' } },
        }),
      ).then((r) => r.data),
    enabled: id !== null,
    refetchInterval: POLL_MS,
  })
}

/** Queues a sample event of a type to the endpoint; its entry appears in the delivery log. */
export function useSendSample(env: Env, id: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (type: Input<'/webhook-endpoints/{endpoint_id}/sample', 'post'>['type']) =>
      call(
        client.POST('/webhook-endpoints/{endpoint_id}/sample', { ...endpoint(env, id), body: { type } }),
      ).then((r) => r.data),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['webhook-deliveries'] }),
  })
}

export function useRedeliver(env: Env) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (id: string) =>
      call(client.POST('/webhook-deliveries/{delivery_id}/redeliver', delivery(env, id))).then(
        (r) => r.data.delivery,
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['webhook-deliveries'] }),
  })
}
