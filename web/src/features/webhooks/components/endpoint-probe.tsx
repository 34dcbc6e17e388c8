import { Button, Group, Paper, Stack, Text } from '@mantine/core'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { Time, useNow } from '../../../components/time.tsx'
import type { Endpoint } from '../../../lib/api.ts'
import { type Env, useRetryNow } from '../api/webhooks.ts'

const OUTCOME = {
  started: 'One delivery goes now as the probe; if it succeeds, the waiting deliveries follow.',
  under_way: 'An attempt to the endpoint is on its way already: its answer decides.',
  nothing_waiting: 'No delivery is waiting: the next event goes at once.',
} as const

/** When a failing endpoint's next probe runs, that its deliveries wait for it, and Retry now. */
export function EndpointProbe({
  env,
  endpoint,
  canManage,
}: {
  env: Env
  endpoint: Endpoint
  canManage: boolean
}) {
  const retry = useRetryNow(env, endpoint.id)
  const now = useNow()
  const probe = endpoint.next_probe_at
  // Not failing (any more): its deliveries go on their own schedule, nothing to retry.
  if (probe === null) return null
  return (
    <Paper
      withBorder
      p="md"
      radius="md"
      component="section"
      aria-label="Deliveries waiting for the next probe"
    >
      <Stack gap="xs">
        <Text size="sm">
          The endpoint is failing: its deliveries wait for its{' '}
          {Date.parse(probe) <= now ? (
            <>probe, due now (one goes as soon as a worker takes it</>
          ) : (
            <>
              next probe, <Time value={probe} /> (one goes then
            </>
          )}
          ; when it succeeds the others follow, when it fails the retry schedule sets the next probe).
        </Text>
        {canManage && (
          <Group gap="xs">
            <Button variant="default" size="xs" loading={retry.isPending} onClick={() => retry.mutate()}>
              Retry now
            </Button>
            {retry.data && (
              <Text size="sm" role="status">
                {OUTCOME[retry.data.probe]}
              </Text>
            )}
          </Group>
        )}
        <ErrorAlert error={retry.error} title="Nothing was retried" />
      </Stack>
    </Paper>
  )
}
