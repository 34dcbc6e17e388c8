import {
  Alert,
  Button,
  Checkbox,
  Group,
  MultiSelect,
  Paper,
  Progress,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core'
import { type FormEvent, useState } from 'react'
import { RefusalAlert } from '../../../components/error-alert.tsx'
import { Time } from '../../../components/time.tsx'
import { formatNumber } from '../../../lib/format.ts'
import { useFieldMessages } from '../../../lib/use-field-messages.ts'
import {
  type Env,
  FILTERABLE_TYPES,
  type ReplayInput,
  useLatestReplay,
  useReplay,
  useReplayPreview,
} from '../api/webhooks.ts'

/** A datetime-local value (the reader's time zone) as an ISO instant. */
export const localToIso = (value: string) => (value ? new Date(value).toISOString() : undefined)

/** What the service may name in a refusal of a replay, in this form's words. */
const LABELS = { since: 'Since', until: 'Until', event_types: 'Event types', only_failed: 'Only failed' }

const events = (n: number) => `${formatNumber(n)} ${n === 1 ? 'event' : 'events'}`

/**
 * Send the endpoint the events of a window again (after an outage). The count
 * comes first (a preview that starts nothing); the replay starts only when the
 * person confirms that count.
 */
export function ReplayForm({ env, endpointId }: { env: Env; endpointId: string }) {
  const replay = useReplay(env, endpointId)
  const preview = useReplayPreview(env, endpointId)
  const [since, setSince] = useState('')
  const [until, setUntil] = useState('')
  const [types, setTypes] = useState<string[]>([])
  const [onlyFailed, setOnlyFailed] = useState(false)
  // A changed window makes the previewed count stale: preview again before replaying.
  const changed =
    <T,>(set: (v: T) => void) =>
    (v: T) => {
      set(v)
      preview.reset()
    }
  const input = (): ReplayInput => {
    const body: ReplayInput = { since: localToIso(since)!, only_failed: onlyFailed }
    if (until) body.until = localToIso(until)!
    // The picker offers FILTERABLE_TYPES only.
    if (types.length > 0) body.event_types = types as NonNullable<ReplayInput['event_types']>
    return body
  }
  // The form's own check of the window, as the service's: until later than since.
  const { refusal, message, check, clear } = useFieldMessages(preview.error ?? replay.error, LABELS)
  const submit = (e: FormEvent) => {
    e.preventDefault()
    const found: Record<string, string> = {}
    if (since && until && !(new Date(until).getTime() > new Date(since).getTime())) {
      found.until = 'Until must be later than Since'
    }
    if (!check(found)) return
    replay.reset()
    preview.mutate(input())
  }
  const counted = preview.data
  const startable = counted && counted.matched > 0 && counted.matched <= counted.limit && !counted.running
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby="replay-heading">
      <Title order={2} size="h3" id="replay-heading" mb="sm">
        Replay events
      </Title>
      <form onSubmit={submit}>
        <Stack gap="sm">
          <Group align="flex-end">
            <TextInput
              label="Since"
              type="datetime-local"
              required
              value={since}
              error={message('since')}
              onChange={(e) => {
                clear()
                changed(setSince)(e.currentTarget.value)
              }}
            />
            <TextInput
              label="Until (optional)"
              description="Now, when left empty"
              type="datetime-local"
              value={until}
              error={message('until')}
              onChange={(e) => {
                clear()
                changed(setUntil)(e.currentTarget.value)
              }}
            />
            <MultiSelect
              label="Event types (optional)"
              placeholder="All"
              data={FILTERABLE_TYPES as unknown as string[]}
              value={types}
              error={message('event_types')}
              onChange={changed(setTypes)}
              w={280}
            />
          </Group>
          <Checkbox
            label="Only events whose every delivery to this endpoint failed"
            checked={onlyFailed}
            onChange={(e) => changed(setOnlyFailed)(e.currentTarget.checked)}
          />
          <div>
            <Button type="submit" variant="default" loading={preview.isPending}>
              Count events
            </Button>
          </div>
        </Stack>
      </form>
      <Stack mt="md">
        {preview.error ? <RefusalAlert refusal={refusal} title="The events were not counted" /> : null}
        {counted && !replay.data && (
          <Alert variant="default" role="status" title="Replay preview">
            <Stack gap="xs">
              <Text size="sm">
                {counted.matched === 0
                  ? 'No events match this window: a replay would send nothing.'
                  : `${events(counted.matched)} would be sent again, in the order they were recorded.`}
                {counted.matched > counted.limit &&
                  ` A replay sends at most ${events(counted.limit)}: narrow the window or the event types.`}
                {counted.running &&
                  ' A replay of this endpoint is still running: wait until it has finished.'}
              </Text>
              {startable && (
                <Group>
                  <Button loading={replay.isPending} onClick={() => replay.mutate(input())}>
                    Replay {events(counted.matched)}
                  </Button>
                  <Button variant="default" onClick={() => preview.reset()}>
                    Cancel
                  </Button>
                </Group>
              )}
            </Stack>
          </Alert>
        )}
        {replay.error ? <RefusalAlert refusal={refusal} title="Nothing was replayed" /> : null}
        {replay.data && (
          <Alert color="green" variant="default" role="status" title="Replay started">
            {events(replay.data.total)} will be sent again, in the order they were recorded; they appear in
            the delivery log as they are queued.
          </Alert>
        )}
        <LatestReplay env={env} endpointId={endpointId} />
      </Stack>
    </Paper>
  )
}

const REPLAY_STATUS: Record<string, string> = {
  running: 'Running',
  completed: 'Completed',
  cancelled: 'Cancelled (the endpoint was disabled or deleted)',
}

/** How far the endpoint's latest replay got: queued of total, kept current while it runs. */
function LatestReplay({ env, endpointId }: { env: Env; endpointId: string }) {
  const latest = useLatestReplay(env, endpointId)
  const r = latest.data
  if (!r) return null
  const percent = r.total === 0 ? 100 : Math.round((r.queued / r.total) * 100)
  return (
    <Stack gap={4} component="section" aria-labelledby="latest-replay-heading">
      <Text fw={600} size="sm" id="latest-replay-heading">
        Latest replay
      </Text>
      <Text size="sm" data-testid="latest-replay">
        {REPLAY_STATUS[r.status] ?? r.status}: {formatNumber(r.queued)} of {formatNumber(r.total)}{' '}
        {r.total === 1 ? 'event' : 'events'} queued · started <Time value={r.created_at} />
      </Text>
      <Progress value={percent} aria-label="Events of the latest replay queued" size="sm" />
    </Stack>
  )
}
