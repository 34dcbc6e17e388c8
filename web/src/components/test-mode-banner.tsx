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
  return (
    <Alert color="orange" variant="default" mb="md" role="status" aria-label="Test mode" title="Test mode">
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
