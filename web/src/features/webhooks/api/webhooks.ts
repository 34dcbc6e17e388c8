import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useSearchParams } from 'react-router'
import { EVENT_TYPES } from '../../../../../src/modules/webhooks/outbox/events.ts'
import {
  api,
  type Delivery,
  type DeliveryAttempt,
  type DeliveryLog,
  type Endpoint,
  type Replay,
} from '../../../lib/api.ts'

export type Env = 'test' | 'live'
/** Types an endpoint can subscribe to (a ping always reaches it). */
export const FILTERABLE_TYPES = EVENT_TYPES.filter((t) => t !== 'ping')
export { EVENT_TYPES }

/** How often the delivery log and the endpoints' health are read again. */
const POLL_MS = 5000

/** The test/live switch, kept in the URL's query (?environment=live). */
export function useEnvironment(): [Env, (env: Env) => void] {
  const [params, setParams] = useSearchParams()
  const env: Env = params.get('environment') === 'live' ? 'live' : 'test'
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

const q = (env: Env) => `environment=${env}`
const endpointsKey = (env: Env) => ['webhook-endpoints', env] as const
const endpointKey = (env: Env, id: string) => ['webhook-endpoint', env, id] as const

export function useEndpoints(env: Env) {
  return useQuery({
    queryKey: endpointsKey(env),
    queryFn: () => api<{ data: Endpoint[] }>('GET', `/webhook-endpoints?${q(env)}`).then((r) => r.data),
    refetchInterval: POLL_MS,
  })
}

export function useEndpoint(env: Env, id: string) {
  return useQuery({
    queryKey: endpointKey(env, id),
    queryFn: () =>
      api<{ data: { endpoint: Endpoint } }>('GET', `/webhook-endpoints/${id}?${q(env)}`).then(
        (r) => r.data.endpoint,
      ),
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
  return useEndpointChange(
    env,
    undefined,
    (input: { url: string; description?: string; enabled_events?: string[] }) =>
      api<{ data: { endpoint: Endpoint; secret: string } }>(
        'POST',
        `/webhook-endpoints?${q(env)}`,
        input,
      ).then((r) => r.data),
  )
}

export function useUpdateEndpoint(env: Env, id: string) {
  return useEndpointChange(env, id, (input: { description: string; enabled_events: string[] }) =>
    api<{ data: { endpoint: Endpoint } }>('PATCH', `/webhook-endpoints/${id}?${q(env)}`, input),
  )
}

export function useRotateSecret(env: Env, id: string) {
  return useEndpointChange(env, id, (grace_period_seconds: number) =>
    api<{ data: { secret: string; previous_secret_expires_at: string } }>(
      'POST',
      `/webhook-endpoints/${id}/rotate-secret?${q(env)}`,
      { grace_period_seconds },
    ).then((r) => r.data),
  )
}

export function usePing(env: Env, id: string) {
  return useEndpointChange(env, id, () =>
    api<{ data: { queued: boolean } }>('POST', `/webhook-endpoints/${id}/test?${q(env)}`),
  )
}

export function useDeleteEndpoint(env: Env, id: string) {
  return useEndpointChange(env, id, () => api('DELETE', `/webhook-endpoints/${id}?${q(env)}`))
}

export interface ReplayInput {
  since: string
  until?: string
  event_types?: string[]
  only_failed?: boolean
}
const replayKey = (env: Env, id: string) => ['webhook-replay', env, id] as const

export function useReplay(env: Env, id: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: ReplayInput) =>
      api<{ data: { replay: Replay } }>('POST', `/webhook-endpoints/${id}/replay?${q(env)}`, input).then(
        (r) => r.data.replay,
      ),
    onSuccess: (replay) => queryClient.setQueryData(replayKey(env, id), replay),
  })
}

/** The endpoint's latest replay (null: never replayed), read again every second while it runs. */
export function useLatestReplay(env: Env, id: string) {
  return useQuery({
    queryKey: replayKey(env, id),
    queryFn: () =>
      api<{ data: { replay: Replay | null } }>('GET', `/webhook-endpoints/${id}/replay?${q(env)}`).then(
        (r) => r.data.replay,
      ),
    refetchInterval: (query) => (query.state.data?.status === 'running' ? 1000 : POLL_MS),
  })
}

export interface LogFilters {
  status?: string
  event_type?: string
  event_id?: string
  order_id?: string
  created_since?: string
  created_until?: string
}

/** One page of the delivery log, read again every few seconds so new entries appear. */
export function useDeliveries(env: Env, endpointId: string, filters: LogFilters, cursor: string | undefined) {
  const params = new URLSearchParams({ environment: env, endpoint_id: endpointId, limit: '20' })
  for (const [k, v] of Object.entries(filters)) if (v) params.set(k, v)
  if (cursor) params.set('cursor', cursor)
  return useQuery({
    queryKey: ['webhook-deliveries', params.toString()],
    queryFn: () => api<DeliveryLog>('GET', `/webhook-deliveries?${params}`),
    refetchInterval: POLL_MS,
    placeholderData: keepPreviousData,
  })
}

export function useDelivery(env: Env, id: string | null) {
  return useQuery({
    queryKey: ['webhook-delivery', env, id],
    queryFn: () =>
      api<{ data: { delivery: Delivery; attempts: DeliveryAttempt[] } }>(
        'GET',
        `/webhook-deliveries/${id}?${q(env)}`,
      ).then((r) => r.data),
    enabled: id !== null,
    refetchInterval: POLL_MS,
  })
}

export function useRedeliver(env: Env) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (id: string) =>
      api<{ data: { delivery: Delivery } }>('POST', `/webhook-deliveries/${id}/redeliver?${q(env)}`).then(
        (r) => r.data.delivery,
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['webhook-deliveries'] }),
  })
}
