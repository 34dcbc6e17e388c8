import { Anchor, Group, Loader, Text } from '@mantine/core'
import { Link } from 'react-router'
import { DataCell, DataRow, DataTable } from '../../../../components/data-table.tsx'
import { ErrorAlert } from '../../../../components/error-alert.tsx'
import { NextPageButton } from '../../../../components/next-page-button.tsx'
import { Page } from '../../../../components/page.tsx'
import { StatusBadge } from '../../../../components/status-badge.tsx'
import { Time } from '../../../../components/time.tsx'
import { AutomationBadges } from '../../../orders/components/order-automation.tsx'
import { useOrganizations } from '../../../organizations/console/api/organizations.ts'
import { PRODUCTION_STATUS_COLOR, useBoard } from '../api/production.ts'
import { EntryBatch, useBoardBatching } from '../components/board-batching.tsx'
import { BoardFilterFields, statusLabel, useBoardFilters } from '../components/board-filters.tsx'
import { DueDate } from '../components/due.tsx'
import { useProductionActions } from '../components/production-actions.tsx'
import { Actions, Items } from '../components/production-buttons.tsx'

/** How long ago, in words. */
function age(iso: string, now: number) {
  const minutes = Math.max(0, Math.round((now - Date.parse(iso)) / 60_000))
  if (minutes < 60) return `${minutes} min`
  const hours = Math.floor(minutes / 60)
  if (hours < 48) return `${hours} h ${minutes % 60} min`
  return `${Math.floor(hours / 24)} days`
}

export function ProductionBoardRoute() {
  const [filters, setFilters] = useBoardFilters()
  const board = useBoard(filters)
  const organizations = useOrganizations()
  const { act, busy, outcome, confirmation } = useProductionActions()
  const entries = board.data?.pages.flatMap((p) => p.data) ?? []
  const counts = board.data?.pages[0]?.counts ?? undefined
  const organization = organizations.data?.find((o) => o.id === filters.organization_id) ?? null
  const batching = useBoardBatching({ entries, filters, organization })
  const now = Date.now()

  return (
    <Page
      title="Production"
      lead="Live orders by production status, rush orders first, then soonest due (in working days of the production calendar), then oldest first; orders an automation rule held for review are apart until a member releases them. Refreshed every 5 seconds; an action on an order another operator changed meanwhile is refused, and nothing is sent twice."
    >
      <Group align="flex-end" wrap="wrap">
        <BoardFilterFields filters={filters} setFilters={setFilters} counts={counts} />
      </Group>
      {batching.toolbar}
      {batching.notice}
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
          columns={[
            ...(batching.selecting ? [{ label: 'Select', hidden: true }] : []),
            'Order',
            'Organization',
            'Due',
            'Age',
            'Status',
            'Items',
            'Actions',
          ]}
        >
          {entries.map((e) => (
            <DataRow key={e.production_order.id}>
              {batching.selecting && (
                <DataCell label="Select" hideLabel>
                  {batching.checkbox(e)}
                </DataCell>
              )}
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
                <StatusBadge color={PRODUCTION_STATUS_COLOR[e.production_order.status] ?? 'gray'}>
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
                <EntryBatch entry={e} />
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
