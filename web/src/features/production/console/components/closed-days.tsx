import { Button, Fieldset, Group, Stack, Text, TextInput } from '@mantine/core'
import { CALENDAR_LIMITS } from '../../../../lib/limits.ts'

/** A closed day as the form holds it. */
export interface ClosedDraft {
  day: string
  note: string
}

/**
 * The calendar's closed days ahead (holidays, stocktaking): a row per day
 * with its note, added and removed here; saved with the calendar.
 */
export function ClosedDays({
  days,
  today,
  onChange,
  message,
}: {
  days: ClosedDraft[]
  today: string
  onChange: (days: ClosedDraft[]) => void
  /** A field's message by its API path (`closed_days.2.day`). */
  message: (field: string) => string | undefined
}) {
  const set = (n: number, change: Partial<ClosedDraft>) =>
    onChange(days.map((d, i) => (i === n ? { ...d, ...change } : d)))
  const whole = message('closed_days')
  return (
    <Fieldset legend="Closed days">
      <Stack gap="xs">
        <Text size="sm">
          Days production does not work besides the weekdays above. Days before today are not listed: they
          dated past orders and stay as they were.
        </Text>
        {days.length === 0 && (
          <Text size="sm" c="dimmed">
            No closed days ahead.
          </Text>
        )}
        {days.map((d, n) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows are positions of the form, as the API's paths are
          <Group key={n} align="flex-start" wrap="wrap">
            <TextInput
              type="date"
              label={`Closed day ${n + 1}`}
              required
              min={today}
              value={d.day}
              error={message(`closed_days.${n}.day`)}
              onChange={(e) => set(n, { day: e.currentTarget.value })}
              w={{ base: '100%', sm: 200 }}
            />
            <TextInput
              label={`Note of closed day ${n + 1}`}
              description="Why it is closed (optional)"
              maxLength={CALENDAR_LIMITS.note.max}
              value={d.note}
              error={message(`closed_days.${n}.note`)}
              onChange={(e) => set(n, { note: e.currentTarget.value })}
              w={{ base: '100%', sm: 320 }}
            />
            <Button
              variant="subtle"
              color="red"
              mt={{ base: 0, sm: 25 }}
              aria-label={`Remove closed day ${n + 1}${d.day ? ` (${d.day})` : ''}`}
              onClick={() => onChange(days.filter((_, i) => i !== n))}
            >
              Remove
            </Button>
          </Group>
        ))}
        {whole && (
          <Text size="sm" c="red" role="alert">
            {whole}
          </Text>
        )}
        <Group>
          <Button
            variant="default"
            disabled={days.length >= CALENDAR_LIMITS.closedDays}
            onClick={() => onChange([...days, { day: '', note: '' }])}
          >
            Add a closed day
          </Button>
        </Group>
      </Stack>
    </Fieldset>
  )
}
