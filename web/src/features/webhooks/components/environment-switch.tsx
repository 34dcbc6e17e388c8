import { SegmentedControl, Text } from '@mantine/core'
import { useId } from 'react'
import { type Env, useEnvironment } from '../api/webhooks.ts'

/** Test or live, as a switch labelled Environment. */
export function EnvironmentControl({ value, onChange }: { value: Env; onChange: (env: Env) => void }) {
  const label = useId()
  return (
    <div>
      <Text size="sm" fw={500} id={label}>
        Environment
      </Text>
      <SegmentedControl
        aria-labelledby={label}
        value={value}
        onChange={(v) => onChange(v === 'live' ? 'live' : 'test')}
        data={[
          { value: 'live', label: 'Live' },
          { value: 'test', label: 'Test' },
        ]}
      />
    </div>
  )
}

/** Test or live: which environment's endpoints and deliveries the page shows (the member's last choice, and in the URL). */
export function EnvironmentSwitch() {
  const [env, setEnv] = useEnvironment()
  return <EnvironmentControl value={env} onChange={setEnv} />
}
