import { Anchor, Button, Group, Select, TextInput } from '@mantine/core'
import { type FormEvent, useState } from 'react'
import { useSearchParams } from 'react-router'
import { PhoneFilters } from '../../../components/phone-filters.tsx'
import type { paths } from '../../../generated/dashboard-api.ts'

type AuditQuery = NonNullable<paths['/audit-log']['get']['parameters']['query']>
export type AuditAction = NonNullable<AuditQuery['action']>
/** What the logs' API and CSV take: empty filters left out. */
export type AuditFilter = Pick<AuditQuery, 'actor' | 'action' | 'from' | 'to'>

/** Every action's name in the filter: a Record over the API's list, so none is missing. */
const ACTION_LABELS: Record<AuditAction, string> = {
  'member.signed_in': 'Member signed in',
  'member.invited': 'Member invited',
  'member.joined': 'Member joined',
  'member.role_changed': 'Role changed',
  'member.removed': 'Member removed',
  'member.invitation_revoked': 'Invitation revoked',
  'member.password_changed': 'Password changed',
  'member.password_reset_issued': 'Password reset link issued',
  'member.password_reset': 'Password set with a reset link',
  'operator.invited': 'Operator invited',
  'operator.invitation_revoked': 'Operator invitation revoked',
  'operator.removed': 'Operator removed',
  'operator.joined': 'Operator joined',
  'operator.signed_in': 'Operator signed in',
  'operator.password_changed': 'Operator password changed',
  'operator.password_reset_issued': 'Operator password reset link issued',
  'operator.password_reset': 'Operator password set with a reset link',
  'organization.created': 'Organization created',
  'api_key.created': 'API key created',
  'api_key.revoked': 'API key revoked',
  'product.created': 'Product created',
  'product.print_spec_set': 'Print specification set',
  'product.lead_time_set': 'Lead time set',
  'shop_order.created': 'Order created in the dashboard',
  'production.status_set': 'Production status set',
  'production.partner_set': 'Partner production set',
  'production.job_completed': 'Production job completed',
  'production.calendar_set': 'Production calendar changed',
  'production.batch_created': 'Batch made',
  'production.batch_orders_added': 'Orders added to a batch',
  'production.batch_order_removed': 'Order taken out of a batch',
  'production.batch_deleted': 'Batch deleted',
  'production.batch_started': 'Batch started',
  'production.batch_completed': 'Batch completed',
  'production.batch_failed': 'Batch failed',
  'production.station_created': 'Station added',
  'production.station_renamed': 'Station renamed',
  'production.station_archived': 'Station removed',
  'order.cancelled': 'Order cancelled',
  'order.changed': 'Order changed',
  'order.released': 'Order released from hold',
  'automation_rule.created': 'Automation rule created',
  'automation_rule.updated': 'Automation rule changed',
  'automation_rule.deleted': 'Automation rule deleted',
  'automation_rule.reordered': 'Automation rules reordered',
  'webhook_endpoint.created': 'Webhook endpoint added',
  'webhook_endpoint.updated': 'Webhook endpoint changed',
  'webhook_endpoint.deleted': 'Webhook endpoint deleted',
  'webhook_endpoint.secret_rotated': 'Webhook secret rotated',
  'webhook_endpoint.replayed': 'Webhook events replayed',
  'webhook_endpoint.sample_sent': 'Webhook sample event sent',
  'webhook_endpoint.retried_now': 'Failing webhook endpoint retried now',
  'webhook_delivery.redelivered': 'Webhook delivery redelivered',
  'organization.retention_set': 'Retention changed',
  'personal_data.erased': 'Customer’s personal data erased',
  'personal_data.exported': 'Customer’s personal data exported',
}

const ACTION_OPTIONS = Object.entries(ACTION_LABELS)
  .map(([value, label]) => ({ value, label }))
  .sort((a, b) => a.label.localeCompare(b.label))

/** The filters as the form and the address hold them: days are the reader's calendar days (YYYY-MM-DD). */
export interface AuditFilterValues {
  actor: string
  action: AuditAction | null
  from: string
  to: string
}
const EMPTY: AuditFilterValues = { actor: '', action: null, from: '', to: '' }
const DAY = /^\d{4}-\d{2}-\d{2}$/
const isAction = (value: string | null): value is AuditAction => value !== null && value in ACTION_LABELS

/**
 * A log's filters kept in the address (?actor=&action=&from=&to=), so that a
 * reload or a shared link shows the same entries; applying them adds a
 * history entry, so Back returns to the filters before. What the address
 * holds that the form cannot (an unknown action, a malformed day) is left out.
 */
export function useAuditFilterParams(): [AuditFilterValues, (values: AuditFilterValues) => void] {
  const [params, setParams] = useSearchParams()
  const action = params.get('action')
  const day = (name: 'from' | 'to') => {
    const value = params.get(name) ?? ''
    return DAY.test(value) ? value : ''
  }
  const values: AuditFilterValues = {
    actor: (params.get('actor') ?? '').trim().slice(0, 320),
    action: isAction(action) ? action : null,
    from: day('from'),
    to: day('to'),
  }
  const set = (next: AuditFilterValues) => {
    const query = new URLSearchParams()
    if (next.actor.trim()) query.set('actor', next.actor.trim())
    if (next.action) query.set('action', next.action)
    if (next.from) query.set('from', next.from)
    if (next.to) query.set('to', next.to)
    setParams(query)
  }
  return [values, set]
}

/** The form's days (the reader's own calendar days) as the API's instants: `to` includes its whole day. */
export function toFilter(v: AuditFilterValues): AuditFilter {
  const day = (d: string, plus = 0) => {
    const [y, m, n] = d.split('-').map(Number)
    return new Date(y!, m! - 1, n! + plus).toISOString()
  }
  return {
    ...(v.actor.trim() ? { actor: v.actor.trim() } : {}),
    ...(v.action ? { action: v.action } : {}),
    ...(v.from ? { from: day(v.from) } : {}),
    ...(v.to ? { to: day(v.to, 1) } : {}),
  }
}

/** The CSV download of a log with the same filters as its page. */
export function csvHref(path: string, filter: AuditFilter): string {
  const query = new URLSearchParams(filter as Record<string, string>).toString()
  return `/dashboard/api${path}${query ? `?${query}` : ''}`
}

/**
 * Who, which action, which days; applied with Filter, and the CSV of what is
 * shown. The form starts from the applied values (give it a `key` of them,
 * so that Back shows the filters it returns to). On a phone the fields fold
 * behind a Filters button.
 */
export function AuditFilters({
  applied,
  onChange,
  csvPath,
  csvName,
}: {
  applied: AuditFilterValues
  onChange: (values: AuditFilterValues) => void
  csvPath: string
  csvName: string
}) {
  const [values, setValues] = useState<AuditFilterValues>(applied)
  const set = (patch: Partial<AuditFilterValues>) => setValues((v) => ({ ...v, ...patch }))
  const submit = (event: FormEvent) => {
    event.preventDefault()
    onChange(values)
  }
  const filter = toFilter(applied)
  const active = Object.keys(filter).length
  return (
    <form onSubmit={submit} aria-label="Filter the audit log">
      <Group align="end" gap="sm">
        <PhoneFilters active={active}>
          <TextInput
            label="Who"
            placeholder="Email or operator token"
            value={values.actor}
            onChange={(e) => set({ actor: e.currentTarget.value })}
            maxLength={320}
            w={{ base: '100%', sm: 220 }}
          />
          <Select
            label="Action"
            placeholder="Any action"
            data={ACTION_OPTIONS}
            value={values.action}
            onChange={(action) => set({ action: isAction(action) ? action : null })}
            searchable
            clearable
            w={{ base: '100%', sm: 240 }}
          />
          <TextInput
            label="From"
            type="date"
            value={values.from}
            onChange={(e) => set({ from: e.currentTarget.value })}
            w={{ base: '100%', sm: 150 }}
          />
          <TextInput
            label="To"
            type="date"
            value={values.to}
            onChange={(e) => set({ to: e.currentTarget.value })}
            w={{ base: '100%', sm: 150 }}
          />
          <Group gap="sm">
            <Button type="submit" variant="default">
              Filter
            </Button>
            {active > 0 && (
              <Button
                variant="subtle"
                onClick={() => {
                  setValues(EMPTY)
                  onChange(EMPTY)
                }}
              >
                Clear filters
              </Button>
            )}
          </Group>
        </PhoneFilters>
        <Anchor href={csvHref(csvPath, filter)} download={csvName} py={6}>
          Download CSV{active > 0 ? ' (filtered)' : ''}
        </Anchor>
      </Group>
    </form>
  )
}
