import { Alert, Code, Group, Stack, Text } from '@mantine/core'
import { CopyTextButton } from './copy-text-button.tsx'

/** A secret shown once (an API key, a webhook signing secret), with a button to copy it. */
export function SecretReveal({ title, label, value }: { title: string; label: string; value: string }) {
  return (
    <Alert color="green" variant="default" role="status" title={title}>
      <Stack gap="xs">
        <Text size="sm">Copy it now: it is shown only this once and cannot be shown again.</Text>
        {/* minWidth 0 lets the secret wrap instead of pushing the button out of a narrow card. */}
        <Group align="center">
          <Code block aria-label={label} style={{ flex: '1 1 16rem', minWidth: 0, wordBreak: 'break-all' }}>
            {value}
          </Code>
          <CopyTextButton value={value}>{`Copy ${label.toLowerCase()}`}</CopyTextButton>
        </Group>
      </Stack>
    </Alert>
  )
}
