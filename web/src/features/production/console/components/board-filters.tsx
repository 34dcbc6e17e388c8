import { Box, SegmentedControl, Select, Text, TextInput } from '@mantine/core'
import { useSearchParams } from 'react-router'
import { useStacked } from '../../../../components/data-table.tsx'
import { PhoneFilters } from '../../../../components/phone-filters.tsx'
import { formatNumber } from '../../../../lib/format.ts'
import { useOrganizations } from '../../../organizations/console/api/organizations.ts'
import { PREFLIGHT_FILTER } from '../../../preflight/api.ts'
import {
  type BoardCounts,
  type BoardFilters,
  PRODUCTION_STATUSES,
  type ProductionStatus,
} from '../api/production.ts'
import { DueFilters } from './due.tsx'

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
const BATCH = [
  { value: '', label: 'In a batch or not' },
  { value: 'none', label: 'In no batch' },
  { value: 'any', label: 'In a batch' },
]
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** The statuses, and the orders held for review by a rule shown apart (pending, not startable). */
export const VIEWS = [...PRODUCTION_STATUSES, ['held', 'Held for review']] as const
export const statusLabel = (s: string) => VIEWS.find(([k]) => k === s)?.[1] ?? s

/** A status with its count under the board's filters ("1000+" where counting stopped). */
function countedLabel(counts: BoardCounts | undefined, status: ProductionStatus | 'held', label: string) {
  const c = counts?.[status]
  return c ? `${label} (${formatNumber(c.count)}${c.more ? '+' : ''})` : label
}

/** The board's filters, kept in the address (what is unset is left out of it). */
export function useBoardFilters(): [BoardFilters, (next: Partial<BoardFilters>) => void] {
  const [params, setParams] = useSearchParams()
  const status = (VIEWS.find(([k]) => k === params.get('status'))?.[0] ?? 'pending') as BoardFilters['status']
  const partner = params.get('partner')
  const preflight = params.get('preflight')
  const due = params.get('due')
  const dueBy = params.get('due_by') ?? ''
  const batch = params.get('batch') ?? ''
  const filters: BoardFilters = {
    status,
    organization_id: params.get('organization_id') ?? '',
    partner: partner === 'true' || partner === 'false' ? partner : '',
    older_than_minutes: params.get('older_than_minutes') ?? '',
    tag: params.get('tag') ?? '',
    preflight: preflight === 'problem' || preflight === 'warning' ? preflight : '',
    due: due === 'late' || due === 'today' ? due : '',
    due_by: /^\d{4}-\d{2}-\d{2}$/.test(dueBy) ? dueBy : '',
    batch: batch === 'none' || batch === 'any' || UUID.test(batch) ? batch : '',
  }
  const set = (next: Partial<BoardFilters>) =>
    setParams(Object.fromEntries(Object.entries({ ...filters, ...next }).filter(([, v]) => v !== '')), {
      replace: true,
    })
  return [filters, set]
}

/** The status views with their counts, then the other filters (folded behind a button on a phone). */
export function BoardFilterFields({
  filters,
  setFilters,
  counts,
}: {
  filters: BoardFilters
  setFilters: (next: Partial<BoardFilters>) => void
  counts: BoardCounts | undefined
}) {
  const organizations = useOrganizations()
  const stacked = useStacked()
  const field = { base: '100%', sm: 'auto' }
  const batches =
    filters.batch && !BATCH.some((b) => b.value === filters.batch)
      ? [...BATCH, { value: filters.batch, label: 'In one batch (from its page)' }]
      : BATCH
  return (
    <>
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
            filters.batch,
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
        <Select
          label="Batch"
          w={field}
          data={batches}
          value={filters.batch}
          onChange={(v) => setFilters({ batch: v ?? '' })}
          allowDeselect={false}
        />
      </PhoneFilters>
    </>
  )
}
