import { Alert, Button, Group, Text } from '@mantine/core'
import { useSearchParams } from 'react-router'
import { useRememberedEnvironment } from '../lib/environment.ts'

/** Shown at the top of every page while the member's environment is Test, with the way back to Live. */
export function TestModeBanner() {
  const [env, setEnv] = useRememberedEnvironment()
  const [params, setParams] = useSearchParams()
  if (env !== 'test') return null
  const backToLive = () => {
    setEnv('live')
    if (params.has('environment')) {
      setParams(
        (p) => {
          const copy = new URLSearchParams(p)
          copy.set('environment', 'live')
          return copy
        },
        { replace: true },
      )
    }
  }
  // The default variant keeps dark text (the light variant's orange title is below 4.5:1); the
  // tinted background and orange border make the mode plain at a glance.
  return (
    <Alert
      variant="default"
      bg="orange.1"
      bd="2px solid var(--mantine-color-orange-7)"
      mb="md"
      role="status"
      aria-label="Test mode"
      title="Test mode"
    >
      <Group justify="space-between" gap="xs">
        <Text size="sm">
          Orders, webhooks and keys you see and change are test data: nothing here is produced.
        </Text>
        <Button size="xs" variant="default" onClick={backToLive}>
          Switch to Live
        </Button>
      </Group>
    </Alert>
  )
}
