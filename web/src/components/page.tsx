import { Stack, Text, Title } from '@mantine/core'
import { type ReactNode, useEffect } from 'react'

/** A page of the shell: its heading (and the document title), an optional lead, its content. */
export function Page({ title, lead, children }: { title: string; lead?: string; children: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · Dashboard`
  }, [title])
  return (
    <Stack gap="lg">
      <div>
        {/* A long word (a request's path, an order id) wraps rather than widening a phone's page. */}
        <Title order={1} size="h2" style={{ overflowWrap: 'anywhere' }}>
          {title}
        </Title>
        {lead && <Text c="dimmed">{lead}</Text>}
      </div>
      {children}
    </Stack>
  )
}
