import { Checkbox, Group, Stack } from '@mantine/core'
import { FILTERABLE_TYPES } from '../api/webhooks.ts'

/** An endpoint's event filter: every type (`*`), or the types ticked. A ping always reaches it. */
export function EventsPicker({
  value,
  onChange,
  error,
}: {
  value: string[]
  onChange: (v: string[]) => void
  /** Why the choice cannot be sent (none chosen, or the service's refusal), beside the types. */
  error?: string | undefined
}) {
  const all = value.includes('*')
  return (
    <Stack gap={6}>
      <Checkbox
        label="All event types, new ones included"
        checked={all}
        onChange={(e) => onChange(e.currentTarget.checked ? ['*'] : ['order.received'])}
      />
      <Checkbox.Group
        label="Event types"
        description="A test ping always reaches the endpoint."
        value={all ? [] : value}
        onChange={onChange}
        error={error}
      >
        <Group mt={4}>
          {FILTERABLE_TYPES.map((t) => (
            <Checkbox key={t} value={t} label={t} disabled={all} />
          ))}
        </Group>
      </Checkbox.Group>
    </Stack>
  )
}

export const describeEvents = (events: string[]) => (events.includes('*') ? 'All' : events.join(', '))
