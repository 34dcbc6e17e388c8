import { Anchor, Button, Group, Select, TextInput } from '@mantine/core'
import { type FormEvent, useState } from 'react'
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
  'operator.invited': 'Operator invited',
  'operator.invitation_revoked': 'Operator invitation revoked',
  'operator.removed': 'Operator removed',
  'operator.joined': 'Operator joined',
  'operator.signed_in': 'Operator signed in',
  'operator.password_changed': 'Operator password changed',
  'organization.created': 'Organization created',
  'api_key.created': 'API key created',
  'api_key.revoked': 'API key revoked',
  'product.created': 'Product created',
  'shop_order.created': 'Order created in the dashboard',
  'production.status_set': 'Production status set',
  'production.partner_set': 'Partner production set',
  'production.job_completed': 'Production job completed',
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
}

const ACTION_OPTIONS = Object.entries(ACTION_LABELS)
  .map(([value, label]) => ({ value, label }))
  .sort((a, b) => a.label.localeCompare(b.label))

interface FormValues {
  actor: string
  action: string | null
  from: string
  to: string
}
const EMPTY: FormValues = { actor: '', action: null, from: '', to: '' }

/** The form's days (the reader's own calendar days) as the API's instants: `to` includes its whole day. */
function toFilter(v: FormValues): AuditFilter {
  const day = (d: string, plus = 0) => {
    const [y, m, n] = d.split('-').map(Number)
    return new Date(y!, m! - 1, n! + plus).toISOString()
  }
  return {
    ...(v.actor.trim() ? { actor: v.actor.trim() } : {}),
    ...(v.action ? { action: v.action as AuditAction } : {}),
    ...(v.from ? { from: day(v.from) } : {}),
    ...(v.to ? { to: day(v.to, 1) } : {}),
  }
}

/** The CSV download of a log with the same filters as its page. */
export function csvHref(path: string, filter: AuditFilter): string {
  const query = new URLSearchParams(filter as Record<string, string>).toString()
  return `/dashboard/api${path}${query ? `?${query}` : ''}`
}

/** Who, which action, which days; applied with Filter, and the CSV of what is shown. */
export function AuditFilters({
  filter,
  onChange,
  csvPath,
  csvName,
}: {
  filter: AuditFilter
  onChange: (filter: AuditFilter) => void
  csvPath: string
  csvName: string
}) {
  const [values, setValues] = useState<FormValues>(EMPTY)
  const set = (patch: Partial<FormValues>) => setValues((v) => ({ ...v, ...patch }))
  const submit = (event: FormEvent) => {
    event.preventDefault()
    onChange(toFilter(values))
  }
  const filtered = Object.keys(filter).length > 0
  return (
    <form onSubmit={submit} aria-label="Filter the audit log">
      <Group align="end" gap="sm">
        <TextInput
          label="Who"
          placeholder="Email or operator token"
          value={values.actor}
          onChange={(e) => set({ actor: e.currentTarget.value })}
          w={{ base: '100%', sm: 220 }}
        />
        <Select
          label="Action"
          placeholder="Any action"
          data={ACTION_OPTIONS}
          value={values.action}
          onChange={(action) => set({ action })}
          searchable
          clearable
          w={{ base: '100%', sm: 240 }}
        />
        <TextInput
          label="From"
          type="date"
          value={values.from}
          onChange={(e) => set({ from: e.currentTarget.value })}
          w={150}
        />
        <TextInput
          label="To"
          type="date"
          value={values.to}
          onChange={(e) => set({ to: e.currentTarget.value })}
          w={150}
        />
        <Button type="submit" variant="default">
          Filter
        </Button>
        {filtered && (
          <Button
            variant="subtle"
            onClick={() => {
              setValues(EMPTY)
              onChange({})
            }}
          >
            Clear filters
          </Button>
        )}
        <Anchor href={csvHref(csvPath, filter)} download={csvName} py={6}>
          Download CSV{filtered ? ' (filtered)' : ''}
        </Anchor>
      </Group>
    </form>
  )
}
