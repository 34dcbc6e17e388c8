import {
  Anchor,
  Badge,
  Button,
  Group,
  Loader,
  NativeSelect,
  SegmentedControl,
  Text,
  TextInput,
} from '@mantine/core'
import { type FormEvent, useEffect, useState } from 'react'
import { Link, useSearchParams } from 'react-router'
import { DataCell, DataRow, DataTable } from '../../../components/data-table.tsx'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { NextPageButton } from '../../../components/next-page-button.tsx'
import { ORDER_STATUSES } from '../../../components/order-statuses.ts'
import { Page } from '../../../components/page.tsx'
import { PhoneFilters } from '../../../components/phone-filters.tsx'
import { Time } from '../../../components/time.tsx'
import { usePageEnvironment } from '../../../lib/environment.ts'
import { formatMoney, formatNumber } from '../../../lib/format.ts'
import { PREFLIGHT_FILTER } from '../../preflight/api.ts'
import { PreflightBadge } from '../../preflight/components/preflight-badge.tsx'
import { type OrderFilters, ordersCsvUrl, useOrders } from '../api/orders.ts'
import { AutomationBadges } from '../components/order-automation.tsx'

const STATUSES = [['', 'Any status'], ...ORDER_STATUSES] as const
/** The filters besides the search, folded behind a Filters button on a phone. */
const FOLDED = ['status', 'from', 'to', 'held', 'priority', 'partner', 'tag', 'preflight'] as const
/** A field's width: the screen's on a phone, its own on a wide one. */
const field = { base: '100%', sm: 'auto' }

export function OrdersRoute() {
  const [params, setParams] = useSearchParams()
  const filters: OrderFilters = {
    environment: usePageEnvironment(),
    status: params.get('status') ?? '',
    from: params.get('from') ?? '',
    to: params.get('to') ?? '',
    q: params.get('q') ?? '',
    held: params.get('held') ?? '',
    priority: params.get('priority') ?? '',
    partner: params.get('partner') ?? '',
    tag: params.get('tag') ?? '',
    preflight: params.get('preflight') ?? '',
  }
  const [search, setSearch] = useState(filters.q)
  const [tag, setTag] = useState(filters.tag)
  // A link to this page with another search (the header's "See all") shows its text in the box.
  useEffect(() => setSearch(filters.q), [filters.q])
  useEffect(() => setTag(filters.tag), [filters.tag])
  const orders = useOrders(filters)
  const rows = orders.data?.pages.flatMap((p) => p.data) ?? []

  const set = (changes: Partial<OrderFilters>) => {
    const next = { ...filters, ...changes }
    const query = new URLSearchParams()
    for (const [key, value] of Object.entries(next)) if (value) query.set(key, value)
    setParams(query, { replace: true })
  }
  const submit = (event: FormEvent) => {
    event.preventDefault()
    set({ q: search.trim(), tag: tag.trim() })
  }

  return (
    <Page
      title="Orders"
      lead="Newest first. Dates are UTC days of creation. The list refreshes every few seconds."
    >
      <SegmentedControl
        aria-label="Environment"
        w="fit-content"
        value={filters.environment}
        onChange={(value) => set({ environment: value as 'test' | 'live' })}
        data={[
          { value: 'live', label: 'Live' },
          { value: 'test', label: 'Test' },
        ]}
      />
      <form onSubmit={submit} aria-label="Filter orders">
        <Group align="flex-end" wrap="wrap">
          <TextInput
            label="Search"
            description="Start of the order id, customer email or name"
            value={search}
            onChange={(e) => setSearch(e.currentTarget.value)}
            maxLength={200}
            w={field}
          />
          <PhoneFilters active={FOLDED.filter((name) => filters[name]).length}>
            <NativeSelect
              label="Status"
              w={field}
              value={filters.status}
              onChange={(e) => set({ status: e.currentTarget.value })}
              data={STATUSES.map(([value, label]) => ({ value, label }))}
            />
            <TextInput
              type="date"
              label="Created from (UTC)"
              w={field}
              value={filters.from}
              onChange={(e) => set({ from: e.currentTarget.value })}
            />
            <TextInput
              type="date"
              label="Created to (UTC)"
              w={field}
              value={filters.to}
              onChange={(e) => set({ to: e.currentTarget.value })}
            />
            <NativeSelect
              label="Held for review"
              w={field}
              value={filters.held}
              onChange={(e) => set({ held: e.currentTarget.value })}
              data={[
                { value: '', label: 'Any' },
                { value: 'true', label: 'Held' },
                { value: 'false', label: 'Not held' },
              ]}
            />
            <NativeSelect
              label="Priority"
              w={field}
              value={filters.priority}
              onChange={(e) => set({ priority: e.currentTarget.value })}
              data={[
                { value: '', label: 'Any' },
                { value: 'rush', label: 'Rush' },
                { value: 'normal', label: 'Normal' },
              ]}
            />
            <NativeSelect
              label="Produced by"
              w={field}
              value={filters.partner}
              onChange={(e) => set({ partner: e.currentTarget.value })}
              data={[
                { value: '', label: 'Anyone' },
                { value: 'true', label: 'A partner' },
                { value: 'false', label: 'Us' },
              ]}
            />
            <NativeSelect
              label="Print check"
              w={field}
              value={filters.preflight}
              onChange={(e) => set({ preflight: e.currentTarget.value })}
              data={PREFLIGHT_FILTER}
            />
            <TextInput
              label="Tag"
              value={tag}
              onChange={(e) => setTag(e.currentTarget.value)}
              maxLength={40}
              w={field}
            />
          </PhoneFilters>
          <Button type="submit">Search</Button>
          <Button
            variant="default"
            onClick={() => {
              setSearch('')
              setTag('')
              set({
                status: '',
                from: '',
                to: '',
                q: '',
                held: '',
                priority: '',
                partner: '',
                tag: '',
                preflight: '',
              })
            }}
          >
            Clear filters
          </Button>
          <Anchor href={ordersCsvUrl(filters)} download={`orders-${filters.environment}.csv`} py={6}>
            Download CSV
          </Anchor>
        </Group>
      </form>
      <ErrorAlert error={orders.error} />
      {orders.isPending ? (
        <Loader aria-label="Loading the orders" />
      ) : rows.length === 0 ? (
        <Text>No {filters.environment} orders match.</Text>
      ) : (
        <DataTable
          label={`${filters.environment === 'live' ? 'Live' : 'Test'} orders, newest first`}
          caption
          columns={['Order', 'Status', 'Customer', 'Items', 'Quantity', 'Total', 'Created']}
        >
          {rows.map((o) => (
            <DataRow key={o.id}>
              <DataCell label="Order" title>
                <Anchor component={Link} to={`/orders/${o.id}`}>
                  {o.external_order_id}
                </Anchor>
              </DataCell>
              <DataCell label="Status">
                <Group gap={4}>
                  <Badge variant="light" color="dark">
                    {o.status}
                  </Badge>
                  <AutomationBadges
                    held={o.held}
                    priority={o.priority}
                    partner={o.produced_by_partner}
                    tags={o.tags}
                  />
                  {/* Only what asks for a look: problems and warnings. */}
                  {(o.print_check === 'problem' || o.print_check === 'warning') && (
                    <PreflightBadge status={o.print_check} />
                  )}
                </Group>
              </DataCell>
              <DataCell label="Customer">
                {o.customer_name}
                {o.customer_email && (
                  <Text size="xs" c="dimmed" component="span" display="block">
                    {o.customer_email}
                  </Text>
                )}
              </DataCell>
              <DataCell label="Items">{formatNumber(o.items)}</DataCell>
              <DataCell label="Quantity">{formatNumber(o.quantity)}</DataCell>
              <DataCell label="Total">
                {o.total_amount === null ? '' : formatMoney(o.total_amount, o.currency)}
              </DataCell>
              <DataCell label="Created">
                <Time value={o.created_at} />
              </DataCell>
            </DataRow>
          ))}
        </DataTable>
      )}
      <NextPageButton pages={orders}>Show older orders</NextPageButton>
    </Page>
  )
}
