import {
  keepPreviousData,
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query'
import type { ShopOrderCreated } from '../../../../../src/modules/orders/orders.console.schemas.ts'
import type { OrderRequest } from '../../../../../src/modules/orders/orders.schemas.ts'
import type {
  OrganizationCreated,
  OrganizationSummary,
  PlatformStats,
} from '../../../../../src/modules/organizations/organizations.console.schemas.ts'
import type {
  BoardPage,
  ProducedEvents,
} from '../../../../../src/modules/production/production.console.schemas.ts'
import type { OperatorDeliveryPage } from '../../../../../src/modules/webhooks/webhooks.console.schemas.ts'
import {
  type ApiKey,
  api,
  type Endpoint,
  type InvitationCreated,
  type Member,
  type Operator,
  type OperatorAuditPage,
  type OperatorInvitation,
  type OperatorInvitationCreated,
} from '../../../lib/api.ts'

/** The operator console's calls (/dashboard/api/operator/...). */
export type { BoardPage, OrganizationSummary, ProducedEvents }
export type BoardEntry = BoardPage['data'][number]

export const PRODUCTION_STATUSES = [
  ['pending', 'Pending'],
  ['in_progress', 'In production'],
  ['completed', 'Completed'],
  ['failed', 'Failed'],
  ['cancelled', 'Cancelled'],
] as const
export type ProductionStatus = (typeof PRODUCTION_STATUSES)[number][0]

export function useOrganizations() {
  return useQuery({
    queryKey: ['operator', 'organizations'],
    queryFn: () => api<{ data: OrganizationSummary[] }>('GET', '/operator/organizations').then((r) => r.data),
    refetchInterval: 5_000,
  })
}

export function useOrganization(id: string) {
  return useQuery({
    queryKey: ['operator', 'organizations', id],
    queryFn: () =>
      api<{ data: { organization: OrganizationSummary } }>('GET', `/operator/organizations/${id}`).then(
        (r) => r.data.organization,
      ),
    refetchInterval: 5_000,
  })
}

export function useCreateOrganization() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (name: string) =>
      api<OrganizationCreated>('POST', '/operator/organizations', { name }).then((r) => r.data.organization),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['operator', 'organizations'] }),
  })
}

export function useInviteOwner() {
  return useMutation({
    mutationFn: (input: { orgId: string; email: string }) =>
      api<InvitationCreated>('POST', `/operator/organizations/${input.orgId}/invitations`, {
        email: input.email,
      }).then((r) => r.data),
  })
}

export function useOrgKeys(orgId: string) {
  return useQuery({
    queryKey: ['operator', 'keys', orgId],
    queryFn: () =>
      api<{ data: ApiKey[] }>('GET', `/operator/organizations/${orgId}/api-keys`).then((r) => r.data),
  })
}

export function useRevokeOrgKey(orgId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (keyId: string) => api('DELETE', `/operator/organizations/${orgId}/api-keys/${keyId}`),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['operator', 'keys', orgId] }),
  })
}

export function useOrgMembers(orgId: string) {
  return useQuery({
    queryKey: ['operator', 'members', orgId],
    queryFn: () =>
      api<{ data: Member[] }>('GET', `/operator/organizations/${orgId}/members`).then((r) => r.data),
  })
}

export function useOrgEndpoints(orgId: string, environment: string) {
  return useQuery({
    queryKey: ['operator', 'endpoints', orgId, environment],
    queryFn: () =>
      api<{ data: Endpoint[] }>(
        'GET',
        `/operator/organizations/${orgId}/webhook-endpoints?environment=${environment}`,
      ).then((r) => r.data),
    refetchInterval: 5_000,
  })
}

export function useOrgDeliveries(orgId: string, environment: string) {
  return useInfiniteQuery({
    queryKey: ['operator', 'deliveries', orgId, environment],
    queryFn: ({ pageParam }) =>
      api<OperatorDeliveryPage>(
        'GET',
        `/operator/organizations/${orgId}/webhook-deliveries?environment=${environment}&limit=25${
          pageParam ? `&cursor=${encodeURIComponent(pageParam)}` : ''
        }`,
      ),
    initialPageParam: '',
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    refetchInterval: 5_000,
  })
}

export function useRedeliver(orgId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (deliveryId: string) => api('POST', `/operator/webhook-deliveries/${deliveryId}/redeliver`),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['operator', 'deliveries', orgId] }),
  })
}

export interface BoardFilters {
  status: ProductionStatus
  organization_id: string
  partner: '' | 'true' | 'false'
  older_than_minutes: string
}

const boardQuery = (f: BoardFilters, cursor: string) =>
  new URLSearchParams(Object.entries({ ...f, limit: '25', cursor }).filter(([, v]) => v !== '')).toString()

/** The production board: polled every 5 seconds, so other operators' changes appear. */
export function useBoard(filters: BoardFilters) {
  return useInfiniteQuery({
    queryKey: ['operator', 'board', filters],
    queryFn: ({ pageParam }) =>
      api<BoardPage>('GET', `/operator/production?${boardQuery(filters, pageParam)}`),
    initialPageParam: '',
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    placeholderData: keepPreviousData,
    refetchInterval: 5_000,
  })
}

/** A production action's answer: what it recorded. */
export interface ActionResult {
  label: string
  events: ProducedEvents
}

export type ProductionAction =
  | { kind: 'status'; productionOrderId: string; status: ProductionStatus; expected: string }
  | { kind: 'partner'; productionOrderId: string; value: boolean; expected: string }
  | { kind: 'job'; jobId: string; expected: string }
  | { kind: 'cancel'; orderId: string; expected: string }

export function useProductionAction() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async (action: ProductionAction): Promise<ProducedEvents> => {
      const expected_status = action.expected
      const answer =
        action.kind === 'status'
          ? await api<{ data: { events: ProducedEvents } }>(
              'POST',
              `/operator/production-orders/${action.productionOrderId}/status`,
              { status: action.status, expected_status },
            )
          : action.kind === 'partner'
            ? await api<{ data: { events: ProducedEvents } }>(
                'POST',
                `/operator/production-orders/${action.productionOrderId}/partner`,
                { produced_by_partner: action.value, expected_status },
              )
            : action.kind === 'job'
              ? await api<{ data: { events: ProducedEvents } }>(
                  'POST',
                  `/operator/production-jobs/${action.jobId}/complete`,
                  { expected_status },
                )
              : await api<{ data: { events: ProducedEvents } }>(
                  'POST',
                  `/operator/orders/${action.orderId}/cancel`,
                  {
                    expected_status,
                  },
                )
      return answer.data.events
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['operator', 'board'] }),
  })
}

export function useCreateShopOrder() {
  return useMutation({
    mutationFn: (input: { orgId: string; body: OrderRequest }) =>
      api<ShopOrderCreated>('POST', `/operator/organizations/${input.orgId}/shop-orders`, input.body).then(
        (r) => r.data,
      ),
  })
}

export function usePlatformStats() {
  return useQuery({
    queryKey: ['operator', 'statistics'],
    queryFn: () => api<PlatformStats>('GET', '/operator/statistics').then((r) => r.data),
    refetchInterval: 5_000,
  })
}

export function usePlatformAuditLog() {
  return useInfiniteQuery({
    queryKey: ['operator', 'audit-log'],
    queryFn: ({ pageParam }) =>
      api<OperatorAuditPage>(
        'GET',
        `/operator/audit-log?limit=50${pageParam ? `&cursor=${encodeURIComponent(pageParam)}` : ''}`,
      ),
    initialPageParam: '',
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    refetchInterval: 10_000,
  })
}

const OPERATORS_KEY = ['operator', 'operators'] as const
const OPERATOR_INVITATIONS_KEY = ['operator', 'operator-invitations'] as const

export function useOperators() {
  return useQuery({
    queryKey: OPERATORS_KEY,
    queryFn: () => api<{ data: Operator[] }>('GET', '/operator/operators').then((r) => r.data),
  })
}

export function useOperatorInvitations() {
  return useQuery({
    queryKey: OPERATOR_INVITATIONS_KEY,
    queryFn: () =>
      api<{ data: OperatorInvitation[] }>('GET', '/operator/operators/invitations').then((r) => r.data),
  })
}

export function useInviteOperator() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (email: string) =>
      api<OperatorInvitationCreated>('POST', '/operator/operators/invitations', { email }).then(
        (r) => r.data,
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: OPERATOR_INVITATIONS_KEY }),
  })
}

export function useRevokeOperatorInvitation() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (id: string) => api('DELETE', `/operator/operators/invitations/${id}`),
    onSettled: () => queryClient.invalidateQueries({ queryKey: OPERATOR_INVITATIONS_KEY }),
  })
}

/** Removes another operator account: its sessions end at once. */
export function useRemoveOperator() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (id: string) =>
      api<{ data: { operator: Operator; sessions_ended: number } }>(
        'DELETE',
        `/operator/operators/${id}`,
      ).then((r) => r.data),
    onSettled: () => queryClient.invalidateQueries({ queryKey: OPERATORS_KEY }),
  })
}
