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
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { Time } from '../../../components/time.tsx'
import { formatNumber } from '../../../lib/format.ts'
import { type Env, FILTERABLE_TYPES, type ReplayInput, useLatestReplay, useReplay } from '../api/webhooks.ts'

/** A datetime-local value (the reader's time zone) as an ISO instant. */
export const localToIso = (value: string) => (value ? new Date(value).toISOString() : undefined)

/** Send the endpoint the events of a window again (after an outage); shows the count or why not. */
export function ReplayForm({ env, endpointId }: { env: Env; endpointId: string }) {
  const replay = useReplay(env, endpointId)
  const [since, setSince] = useState('')
  const [until, setUntil] = useState('')
  const [types, setTypes] = useState<string[]>([])
  const [onlyFailed, setOnlyFailed] = useState(false)
  const submit = (e: FormEvent) => {
    e.preventDefault()
    const input: ReplayInput = { since: localToIso(since)!, only_failed: onlyFailed }
    if (until) input.until = localToIso(until)!
    // The picker offers FILTERABLE_TYPES only.
    if (types.length > 0) input.event_types = types as NonNullable<ReplayInput['event_types']>
    replay.mutate(input)
  }
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
              onChange={(e) => setSince(e.currentTarget.value)}
            />
            <TextInput
              label="Until (optional)"
              description="Now, when left empty"
              type="datetime-local"
              value={until}
              onChange={(e) => setUntil(e.currentTarget.value)}
            />
            <MultiSelect
              label="Event types (optional)"
              placeholder="All"
              data={FILTERABLE_TYPES as unknown as string[]}
              value={types}
              onChange={setTypes}
              w={280}
            />
          </Group>
          <Checkbox
            label="Only events whose every delivery to this endpoint failed"
            checked={onlyFailed}
            onChange={(e) => setOnlyFailed(e.currentTarget.checked)}
          />
          <div>
            <Button type="submit" variant="default" loading={replay.isPending}>
              Replay
            </Button>
          </div>
        </Stack>
      </form>
      <Stack mt="md">
        <ErrorAlert error={replay.error} title="Nothing was replayed" />
        {replay.data && (
          <Alert color="green" variant="default" role="status" title="Replay started">
            {formatNumber(replay.data.total)} {replay.data.total === 1 ? 'event' : 'events'} will be sent
            again, in the order they were recorded; they appear in the delivery log as they are queued.
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
