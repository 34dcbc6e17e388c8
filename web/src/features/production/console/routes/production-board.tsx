import { Anchor, Box, Group, Loader, SegmentedControl, Select, Text, TextInput } from '@mantine/core'
import { Link, useSearchParams } from 'react-router'
import { DataCell, DataRow, DataTable, useStacked } from '../../../../components/data-table.tsx'
import { ErrorAlert } from '../../../../components/error-alert.tsx'
import { NextPageButton } from '../../../../components/next-page-button.tsx'
import { Page } from '../../../../components/page.tsx'
import { PhoneFilters } from '../../../../components/phone-filters.tsx'
import { StatusBadge } from '../../../../components/status-badge.tsx'
import { Time } from '../../../../components/time.tsx'
import { formatNumber } from '../../../../lib/format.ts'
import { AutomationBadges } from '../../../orders/components/order-automation.tsx'
import { useOrganizations } from '../../../organizations/console/api/organizations.ts'
import { PREFLIGHT_FILTER } from '../../../preflight/api.ts'
import {
  type BoardCounts,
  type BoardFilters,
  PRODUCTION_STATUSES,
  type ProductionStatus,
  useBoard,
} from '../api/production.ts'
import { DueDate, DueFilters } from '../components/due.tsx'
import { useProductionActions } from '../components/production-actions.tsx'
import { Actions, Items } from '../components/production-buttons.tsx'

const AGES = [
  { value: '', label: 'Any age' },
  { value: '15', label: 'Older than 15 minutes' },
  { value: '60', label: 'Older than 1 hour' },
  { value: '240', label: 'Older than 4 hours' },
  { value: '1440', label: 'Older than 1 day' },
  { value: '4320', label: 'Older than 3 days' },
]
const PARTNER = [
  { value: '', label: 'All orders' },
  { value: 'false', label: 'Produced in house' },
  { value: 'true', label: 'Produced by a partner' },
]
const STATUS_COLOR: Record<string, string> = {
  pending: 'yellow',
  in_progress: 'blue',
  completed: 'green',
  failed: 'red',
  cancelled: 'gray',
}
/** The statuses, and the orders held for review by a rule shown apart (pending, not startable). */
const VIEWS = [...PRODUCTION_STATUSES, ['held', 'Held for review']] as const
const statusLabel = (s: string) => VIEWS.find(([k]) => k === s)?.[1] ?? s

/** A status with its count under the board's filters ("1000+" where counting stopped). */
function countedLabel(counts: BoardCounts | undefined, status: ProductionStatus | 'held', label: string) {
  const c = counts?.[status]
  return c ? `${label} (${formatNumber(c.count)}${c.more ? '+' : ''})` : label
}

/** How long ago, in words. */
function age(iso: string, now: number) {
  const minutes = Math.max(0, Math.round((now - Date.parse(iso)) / 60_000))
  if (minutes < 60) return `${minutes} min`
  const hours = Math.floor(minutes / 60)
  if (hours < 48) return `${hours} h ${minutes % 60} min`
  return `${Math.floor(hours / 24)} days`
}

function useFilters(): [BoardFilters, (next: Partial<BoardFilters>) => void] {
  const [params, setParams] = useSearchParams()
  const status = (VIEWS.find(([k]) => k === params.get('status'))?.[0] ?? 'pending') as BoardFilters['status']
  const partner = params.get('partner')
  const preflight = params.get('preflight')
  const due = params.get('due')
  const dueBy = params.get('due_by') ?? ''
  const filters: BoardFilters = {
    status,
    organization_id: params.get('organization_id') ?? '',
    partner: partner === 'true' || partner === 'false' ? partner : '',
    older_than_minutes: params.get('older_than_minutes') ?? '',
    tag: params.get('tag') ?? '',
    preflight: preflight === 'problem' || preflight === 'warning' ? preflight : '',
    due: due === 'late' || due === 'today' ? due : '',
    due_by: /^\d{4}-\d{2}-\d{2}$/.test(dueBy) ? dueBy : '',
  }
  const set = (next: Partial<BoardFilters>) =>
    setParams(Object.fromEntries(Object.entries({ ...filters, ...next }).filter(([, v]) => v !== '')), {
      replace: true,
    })
  return [filters, set]
}

export function ProductionBoardRoute() {
  const [filters, setFilters] = useFilters()
  const board = useBoard(filters)
  const organizations = useOrganizations()
  const { act, busy, outcome, confirmation } = useProductionActions()
  const entries = board.data?.pages.flatMap((p) => p.data) ?? []
  const counts = board.data?.pages[0]?.counts ?? undefined
  const now = Date.now()
  const stacked = useStacked()
  const field = { base: '100%', sm: 'auto' }

  return (
    <Page
      title="Production"
      lead="Live orders by production status, rush orders first, then soonest due (in working days of the production calendar), then oldest first; orders an automation rule held for review are apart until a member releases them. Refreshed every 5 seconds; an action on an order another operator changed meanwhile is refused, and nothing is sent twice."
    >
      <Group align="flex-end" wrap="wrap">
        <Box w={field}>
          <Text size="sm" fw={500} id="board-status-label">
            Production status
          </Text>
          <SegmentedControl
            aria-labelledby="board-status-label"
            orientation={stacked ? 'vertical' : 'horizontal'}
            fullWidth={stacked}
            value={filters.status}
            onChange={(v) => setFilters({ status: v as BoardFilters['status'] })}
            data={VIEWS.map(([value, label]) => ({
              value,
              label: countedLabel(counts, value, label),
            }))}
          />
        </Box>
        <PhoneFilters
          active={
            [
              filters.organization_id,
              filters.partner,
              filters.tag,
              filters.older_than_minutes,
              filters.preflight,
              filters.due,
              filters.due_by,
            ].filter(Boolean).length
          }
        >
          <Select
            label="Organization"
            w={field}
            data={[
              { value: '', label: 'All organizations' },
              ...(organizations.data?.map((o) => ({ value: o.id, label: o.name })) ?? []),
            ]}
            value={filters.organization_id}
            onChange={(v) => setFilters({ organization_id: v ?? '' })}
            allowDeselect={false}
            searchable
          />
          <Select
            label="Partner"
            w={field}
            data={PARTNER}
            value={filters.partner}
            onChange={(v) => setFilters({ partner: (v ?? '') as BoardFilters['partner'] })}
            allowDeselect={false}
          />
          <TextInput
            label="Tag"
            w={field}
            value={filters.tag}
            maxLength={40}
            onChange={(e) => setFilters({ tag: e.currentTarget.value })}
          />
          <Select
            label="Age"
            w={field}
            data={AGES}
            value={filters.older_than_minutes}
            onChange={(v) => setFilters({ older_than_minutes: v ?? '' })}
            allowDeselect={false}
          />
          <Select
            label="Print check"
            w={field}
            data={PREFLIGHT_FILTER}
            value={filters.preflight}
            onChange={(v) => setFilters({ preflight: (v ?? '') as BoardFilters['preflight'] })}
            allowDeselect={false}
          />
          <DueFilters filters={filters} onChange={setFilters} w={field} />
        </PhoneFilters>
      </Group>
      {outcome}
      <ErrorAlert error={board.error} />
      {board.isPending ? (
        <Loader aria-label="Loading the production board" />
      ) : entries.length === 0 ? (
        <Text c="dimmed">No live orders {statusLabel(filters.status).toLowerCase()} with these filters.</Text>
      ) : (
        <DataTable
          label={
            filters.status === 'held'
              ? 'Live orders held for review by an automation rule, soonest due first: release them on the order page'
              : `Live orders ${statusLabel(filters.status).toLowerCase()}, rush first, then soonest due`
          }
          caption
          verticalSpacing="sm"
          columns={['Order', 'Organization', 'Due', 'Age', 'Status', 'Items', 'Actions']}
        >
          {entries.map((e) => (
            <DataRow key={e.production_order.id}>
              <DataCell label="Order" rowHeader>
                <Anchor
                  component={Link}
                  to={`/operator/production/${e.production_order.id}`}
                  fw={600}
                  size="sm"
                  aria-label={`Open production order ${e.order.external_order_id}`}
                >
                  {e.order.external_order_id}
                </Anchor>
                <Text size="xs" component="span" display="block">
                  {e.order.customer_name}
                </Text>
                {e.order.source === 'shop' && <StatusBadge color="gray">shop: no events</StatusBadge>}
              </DataCell>
              <DataCell label="Organization">{e.organization.name}</DataCell>
              <DataCell label="Due">
                <DueDate due={e.due} status={e.production_order.status} />
              </DataCell>
              <DataCell label="Age">
                <Text size="sm" component="span" display="block">
                  {age(e.created_at, now)}
                </Text>
                <Text size="xs" component="span" display="block">
                  <Time value={e.created_at} exact />
                </Text>
              </DataCell>
              <DataCell label="Status">
                <StatusBadge color={STATUS_COLOR[e.production_order.status] ?? 'gray'}>
                  {statusLabel(e.production_order.status)}
                </StatusBadge>
                {e.production_order.produced_by_partner && (
                  <Text size="xs" component="span" display="block">
                    Partner
                  </Text>
                )}
                <Group gap={4} mt={4}>
                  <AutomationBadges held={e.held} priority={e.priority} partner={false} tags={e.tags} />
                </Group>
                {e.held && e.hold && (
                  <Text size="xs" mt={4} component="span" display="block">
                    Held for review by rule '{e.hold.name}': {e.hold.reason}
                  </Text>
                )}
              </DataCell>
              <DataCell label="Items" labelAbove>
                <Items entry={e} act={act} busy={busy} />
              </DataCell>
              <DataCell label="Actions" hideLabel>
                <Actions entry={e} act={act} busy={busy} />
              </DataCell>
            </DataRow>
          ))}
        </DataTable>
      )}
      <NextPageButton pages={board}>Show more orders</NextPageButton>
      {confirmation}
    </Page>
  )
}
