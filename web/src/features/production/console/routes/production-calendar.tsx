import {
  Alert,
  Anchor,
  Button,
  Checkbox,
  Group,
  Loader,
  NumberInput,
  Paper,
  Select,
  SimpleGrid,
  Stack,
} from '@mantine/core'
import { type FormEvent, useState } from 'react'
import { Link } from 'react-router'
import { ErrorAlert, RefusalAlert } from '../../../../components/error-alert.tsx'
import { Fact } from '../../../../components/fact.tsx'
import { Page } from '../../../../components/page.tsx'
import { Time } from '../../../../components/time.tsx'
import { checkLength, checkWholeNumber } from '../../../../lib/field-errors.ts'
import { formatNumber } from '../../../../lib/format.ts'
import { CALENDAR_LIMITS } from '../../../../lib/limits.ts'
import { useFieldMessages } from '../../../../lib/use-field-messages.ts'
import { formatDay } from '../../lib/due-words.ts'
import {
  type CalendarSaved,
  type ProductionCalendar,
  useProductionCalendar,
  useSetProductionCalendar,
} from '../api/calendar.ts'
import { ClosedDays, type ClosedDraft } from '../components/closed-days.tsx'

const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday']

/** What the service may name in a refusal, in this form's words. */
function labels(field: string) {
  if (field === 'time_zone') return 'Time zone'
  if (field === 'working_weekdays') return 'Working weekdays'
  if (field === 'default_lead_time_days') return 'Default lead time'
  if (field === 'closed_days') return 'Closed days'
  const day = /^closed_days\.(\d+)\.(day|note)$/.exec(field)
  if (!day) return undefined
  return day[2] === 'day' ? `Closed day ${Number(day[1]) + 1}` : `Note of closed day ${Number(day[1]) + 1}`
}

/** The browser's time zones, with the calendar's own and UTC (not every browser lists it). */
function timeZones(current: string): string[] {
  const known = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : []
  return [...new Set(['UTC', current, ...known])]
}

const isDay = (day: string) =>
  /^\d{4}-\d{2}-\d{2}$/.test(day) && new Date(`${day}T00:00:00Z`).toISOString().startsWith(day)

/** The form's own checks, in the service's words where it has them: each message by the API's field path. */
function checks(draft: Draft) {
  const found: Record<string, string | undefined> = {
    time_zone: checkLength('Time zone', draft.timeZone, CALENDAR_LIMITS.timeZone),
    working_weekdays: draft.weekdays.length === 0 ? 'Pick at least one working weekday' : undefined,
    default_lead_time_days: checkWholeNumber('Default lead time', draft.lead, CALENDAR_LIMITS.leadTimeDays),
    closed_days:
      draft.closed.length > CALENDAR_LIMITS.closedDays
        ? `At most ${CALENDAR_LIMITS.closedDays} closed days`
        : undefined,
  }
  const seen = new Set<string>()
  draft.closed.forEach((c, n) => {
    const label = `Closed day ${n + 1}`
    found[`closed_days.${n}.day`] =
      c.day === ''
        ? `${label} is required`
        : !isDay(c.day)
          ? `${label} is not a date (YYYY-MM-DD)`
          : seen.has(c.day)
            ? `${label} is listed twice`
            : undefined
    seen.add(c.day)
    found[`closed_days.${n}.note`] = checkLength(`Note of closed day ${n + 1}`, c.note, CALENDAR_LIMITS.note)
  })
  return found
}

interface Draft {
  timeZone: string
  weekdays: string[]
  lead: number | string
  closed: ClosedDraft[]
}

const draftOf = (c: ProductionCalendar): Draft => ({
  timeZone: c.time_zone,
  weekdays: c.working_weekdays.map(String),
  lead: c.default_lead_time_days,
  closed: c.closed_days.map((d) => ({ day: d.day, note: d.note })),
})

/** /operator/production-calendar: the working days and default lead time that date production orders. */
export function ProductionCalendarRoute() {
  const calendar = useProductionCalendar()
  const save = useSetProductionCalendar()
  const [saved, setSaved] = useState<CalendarSaved | null>(null)
  // Each save starts the form again from the calendar saved; a refresh alone keeps what is being typed.
  const [saves, setSaves] = useState(0)
  return (
    <Page
      title="Production calendar"
      lead="Every production order is due its items' longest lead time in working days after it was ordered: the working weekdays below, less the closed days, counted in the calendar's time zone. Products without their own lead time take the default. Saving dates every open production order again."
    >
      <Anchor component={Link} to="/operator/production" size="sm">
        Back to the production board
      </Anchor>
      <ErrorAlert error={calendar.error} title="The production calendar could not be loaded" />
      {saved && !save.isPending && !save.error && (
        <Alert color="green" variant="default" role="status" title="Production calendar saved">
          {saved.redated_orders === 0
            ? 'No open production order needed dating again.'
            : `${formatNumber(saved.redated_orders)} open production ${saved.redated_orders === 1 ? 'order was' : 'orders were'} dated again.`}
        </Alert>
      )}
      {!calendar.data ? (
        !calendar.error && <Loader aria-label="Loading the production calendar" />
      ) : (
        <CalendarForm
          // A saved calendar comes back as the service keeps it (closed days sorted, duplicates merged).
          key={saves}
          calendar={calendar.data}
          save={save}
          onSaved={(answer) => {
            setSaved(answer)
            setSaves((n) => n + 1)
          }}
        />
      )}
    </Page>
  )
}

function CalendarForm({
  calendar,
  save,
  onSaved,
}: {
  calendar: ProductionCalendar
  save: ReturnType<typeof useSetProductionCalendar>
  onSaved: (saved: CalendarSaved) => void
}) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(calendar))
  const fields = useFieldMessages(save.error, labels)
  const { refusal, message } = fields
  const set = (change: Partial<Draft>, field: string) => {
    fields.changed(field)
    setDraft((d) => ({ ...d, ...change }))
  }

  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (!fields.check(checks(draft))) return
    save.mutate(
      {
        time_zone: draft.timeZone,
        working_weekdays: draft.weekdays.map(Number).sort((a, b) => a - b),
        default_lead_time_days: Number(draft.lead),
        closed_days: draft.closed.map((c) => ({ day: c.day, note: c.note.trim() })),
      },
      { onSuccess: onSaved },
    )
  }

  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-label="Production calendar">
      <SimpleGrid cols={{ base: 1, sm: 3 }} mb="md">
        <Fact label="Today in the calendar">{formatDay(calendar.today)}</Fact>
        <Fact label="An order placed now is due">
          {formatDay(calendar.due_today_with_default)} (with the default lead time)
        </Fact>
        <Fact label="Last change">
          <Time value={calendar.updated_at} />
        </Fact>
      </SimpleGrid>
      <form onSubmit={submit} noValidate>
        <Stack>
          <Select
            label="Time zone"
            description="When the calendar's days begin and end"
            required
            searchable
            allowDeselect={false}
            limit={100}
            data={timeZones(calendar.time_zone)}
            value={draft.timeZone}
            error={message('time_zone')}
            onChange={(v) => set({ timeZone: v ?? '' }, 'time_zone')}
            w={{ base: '100%', sm: 320 }}
          />
          <Checkbox.Group
            label="Working weekdays"
            description="The weekdays production works"
            withAsterisk
            value={draft.weekdays}
            error={message('working_weekdays')}
            onChange={(v) => set({ weekdays: v }, 'working_weekdays')}
          >
            <Group mt="xs" gap="md">
              {WEEKDAYS.map((name, n) => (
                <Checkbox key={name} value={String(n + 1)} label={name} />
              ))}
            </Group>
          </Checkbox.Group>
          <NumberInput
            label="Default lead time (working days)"
            description={`For products without their own lead time: ${CALENDAR_LIMITS.leadTimeDays.min} (due the day it is ordered) to ${CALENDAR_LIMITS.leadTimeDays.max}`}
            required
            min={CALENDAR_LIMITS.leadTimeDays.min}
            max={CALENDAR_LIMITS.leadTimeDays.max}
            allowDecimal={false}
            value={draft.lead}
            error={message('default_lead_time_days')}
            onChange={(v) => set({ lead: v }, 'default_lead_time_days')}
            w={{ base: '100%', sm: 320 }}
          />
          <ClosedDays
            days={draft.closed}
            today={calendar.today}
            message={message}
            onChange={(closed) => {
              fields.clear()
              setDraft((d) => ({ ...d, closed }))
            }}
          />
          <RefusalAlert refusal={refusal} title="The production calendar was not saved" />
          <Group>
            <Button type="submit" loading={save.isPending}>
              Save production calendar
            </Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  )
}
