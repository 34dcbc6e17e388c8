import { Alert, Code, Group, Stack, Text } from '@mantine/core'
import { useEffect, useRef } from 'react'
import { CopyTextButton } from './copy-text-button.tsx'

/** "Signing secret" → "signing secret"; "API key" stays as it is. */
const lowerFirst = (label: string) =>
  /^[A-Z][a-z]/.test(label) ? label[0]!.toLowerCase() + label.slice(1) : label

/**
 * A secret shown once (an API key, a webhook signing secret), with a button to
 * copy it. It appears after the member's action, often below the fold: it is
 * scrolled into view and its Copy button takes the focus, for each new secret.
 */
export function SecretReveal({
  title,
  label,
  value,
  note = 'Copy it now: it is shown only this once and cannot be shown again.',
}: {
  title: string
  label: string
  value: string
  /** What to do with it; by default, copy it now. */
  note?: string
}) {
  const shown = useRef<HTMLDivElement>(null)
  useEffect(() => {
    if (!value) return
    shown.current?.scrollIntoView({ block: 'center' })
    shown.current?.querySelector<HTMLButtonElement>('button')?.focus({ preventScroll: true })
  }, [value])
  return (
    <Alert ref={shown} color="green" variant="default" role="status" title={title}>
      <Stack gap="xs">
        <Text size="sm">{note}</Text>
        {/* minWidth 0 lets the secret wrap instead of pushing the button out of a narrow card. */}
        <Group align="center">
          <Code block aria-label={label} style={{ flex: '1 1 16rem', minWidth: 0, wordBreak: 'break-all' }}>
            {value}
          </Code>
          <CopyTextButton value={value}>{`Copy ${lowerFirst(label)}`}</CopyTextButton>
        </Group>
      </Stack>
    </Alert>
  )
}
