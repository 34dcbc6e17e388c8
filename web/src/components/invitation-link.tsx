import { Alert, Code, Group, Stack, Text } from '@mantine/core'
import { CopyTextButton } from './copy-text-button.tsx'

/** An invitation link to pass on (the service sends no email), with a button to copy it. */
export function InvitationLink({
  email,
  url,
  to = 'the owner',
}: {
  email: string
  url: string
  to?: string
}) {
  return (
    <Alert
      color="green"
      variant="default"
      role="status"
      title={<span style={{ overflowWrap: 'anywhere' }}>Invitation for {email}</span>}
    >
      <Stack gap="xs">
        <Text size="sm">Pass this link on to {to}: it works once, for 7 days. It is shown only now.</Text>
        <Group align="center">
          <Code
            block
            aria-label="Invitation link"
            style={{ flex: '1 1 16rem', minWidth: 0, whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}
          >
            {url}
          </Code>
          <CopyTextButton value={url}>Copy link</CopyTextButton>
        </Group>
      </Stack>
    </Alert>
  )
}
