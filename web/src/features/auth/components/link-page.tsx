import { Container, Paper, Title } from '@mantine/core'
import { type ReactNode, useState } from 'react'

/** The token of a link given to someone (an invitation, a password reset): in the fragment, which browsers never send. */
export function useLinkToken(): string {
  const [token] = useState(() => new URLSearchParams(window.location.hash.slice(1)).get('token') ?? '')
  return token
}

/** The page such a link opens: outside the shell, a heading and one card. */
export function LinkPage({ heading, children }: { heading: string; children: ReactNode }) {
  return (
    <Container size={460} py="xl" component="main">
      <Title order={1} ta="center" mb="md">
        {heading}
      </Title>
      <Paper withBorder p="lg" radius="md">
        {children}
      </Paper>
    </Container>
  )
}
