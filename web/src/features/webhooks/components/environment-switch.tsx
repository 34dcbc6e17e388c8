import { SegmentedControl, Text } from '@mantine/core'
import { useEnvironment } from '../api/webhooks.ts'

/** Test or live: which environment's endpoints and deliveries the page shows (the member's last choice, and in the URL). */
export function EnvironmentSwitch() {
  const [env, setEnv] = useEnvironment()
  return (
    <div>
      <Text size="sm" fw={500} id="environment-switch-label">
        Environment
      </Text>
      <SegmentedControl
        aria-labelledby="environment-switch-label"
        value={env}
        onChange={(v) => setEnv(v === 'live' ? 'live' : 'test')}
        data={[
          { value: 'live', label: 'Live' },
          { value: 'test', label: 'Test' },
        ]}
      />
    </div>
  )
}
