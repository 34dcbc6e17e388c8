import { Button, Group, NativeSelect, TextInput } from '@mantine/core'
import { type FormEvent, useState } from 'react'
import { PhoneFilters } from '../../../components/phone-filters.tsx'
import type { Env } from '../../../lib/environment.ts'
import { useApiKeys } from '../../api-keys/api/api-keys.ts'
import { FILTER_NAMES, type RequestFilters } from '../api/requests.ts'

const STATUS_CLASSES = [
  { value: '', label: 'Any status' },
  { value: '2xx', label: '2xx success' },
  { value: '3xx', label: '3xx redirect' },
  { value: '4xx', label: '4xx refused' },
  { value: '5xx', label: '5xx failed' },
]

/** An instant (ISO) as a datetime-local field shows it, in the reader's zone; '' for none. */
export function isoToLocal(iso: string): string {
  const at = new Date(iso)
  if (!iso || Number.isNaN(at.getTime())) return ''
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}`
}
const localToIso = (local: string) => (local ? new Date(local).toISOString() : '')

/** The fields typed in full and applied together with Filter (or Enter). */
const TYPED = ['error_code', 'path', 'request_id', 'order_id'] as const
type Typed = Record<(typeof TYPED)[number], string>

/**
 * The request log's filters, kept in the address: status class, key and
 * times apply at once; an error code, a path, a request id or an order id
 * when submitted. On a phone they fold behind a Filters button.
 */
export function RequestFiltersForm({
  env,
  filters,
  onChange,
}: {
  env: Env
  filters: RequestFilters
  onChange: (changes: Partial<RequestFilters>) => void
}) {
  const [typed, setTyped] = useState<Typed>(() => ({
    error_code: filters.error_code,
    path: filters.path,
    request_id: filters.request_id,
    order_id: filters.order_id,
  }))
  const keys = useApiKeys().data ?? []
  const submit = (event: FormEvent) => {
    event.preventDefault()
    onChange(Object.fromEntries(TYPED.map((name) => [name, typed[name].trim()])))
  }
  const text = (name: keyof Typed, label: string, placeholder?: string, width = 200) => (
    <TextInput
      label={label}
      placeholder={placeholder}
      value={typed[name]}
      onChange={(e) => {
        const value = e.currentTarget.value
        setTyped((t) => ({ ...t, [name]: value }))
      }}
      maxLength={name === 'path' ? 2048 : 255}
      w={{ base: '100%', sm: width }}
    />
  )
  const active = FILTER_NAMES.filter((name) => filters[name]).length
  return (
    <form onSubmit={submit} aria-label="Filter requests">
      <Group align="flex-end" gap="sm">
        <PhoneFilters active={active}>
          <NativeSelect
            label="Status"
            value={filters.status_class}
            onChange={(e) => onChange({ status_class: e.currentTarget.value })}
            data={STATUS_CLASSES}
            w={{ base: '100%', sm: 150 }}
          />
          {text('error_code', 'Error code', 'validation_failed', 180)}
          {text('path', 'Path starts with', '/v1/orders', 200)}
          <NativeSelect
            label="API key"
            value={filters.key_id}
            onChange={(e) => onChange({ key_id: e.currentTarget.value })}
            data={[
              { value: '', label: 'Any key' },
              ...keys
                .filter((k) => k.environment === env || k.id === filters.key_id)
                .map((k) => ({
                  value: k.id,
                  label: `${k.key_prefix}…${k.name ? ` ${k.name}` : ''}${k.revoked_at ? ' (revoked)' : ''}`,
                })),
            ]}
            w={{ base: '100%', sm: 220 }}
          />
          {text('request_id', 'Request id', 'X-Request-Id', 220)}
          {text('order_id', 'Order id', undefined, 220)}
          <TextInput
            label="Since"
            type="datetime-local"
            value={isoToLocal(filters.created_since)}
            onChange={(e) => onChange({ created_since: localToIso(e.currentTarget.value) })}
            w={{ base: '100%', sm: 'auto' }}
          />
          <TextInput
            label="Until"
            type="datetime-local"
            value={isoToLocal(filters.created_until)}
            onChange={(e) => onChange({ created_until: localToIso(e.currentTarget.value) })}
            w={{ base: '100%', sm: 'auto' }}
          />
          <Group gap="sm">
            <Button type="submit">Filter</Button>
            {active > 0 && (
              <Button
                variant="default"
                onClick={() => {
                  setTyped({ error_code: '', path: '', request_id: '', order_id: '' })
                  onChange(Object.fromEntries(FILTER_NAMES.map((name) => [name, ''])))
                }}
              >
                Clear filters
              </Button>
            )}
          </Group>
        </PhoneFilters>
      </Group>
    </form>
  )
}
