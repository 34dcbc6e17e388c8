import { Button, Container, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core'
import { type FormEvent, useEffect, useState } from 'react'
import { Navigate, useLocation, useNavigate } from 'react-router'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { useAccount, useSignIn } from '../api/session.ts'

export function SignInRoute() {
  const session = useAccount()
  const signIn = useSignIn()
  const navigate = useNavigate()
  const from = (useLocation().state as { from?: string } | null)?.from ?? '/'
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  useEffect(() => {
    document.title = 'Sign in · Dashboard'
  }, [])

  if (session.data) return <Navigate to={from} replace />

  const submit = (e: FormEvent) => {
    e.preventDefault()
    signIn.mutate({ email, password }, { onSuccess: () => navigate(from, { replace: true }) })
  }
  return (
    <Container size={420} py="xl" component="main">
      <Title order={1} ta="center" mb="md">
        Sign in to the dashboard
      </Title>
      <Paper withBorder p="lg" radius="md">
        <form onSubmit={submit}>
          <Stack>
            <TextInput
              label="Email"
              type="email"
              autoComplete="username"
              required
              value={email}
              onChange={(e) => setEmail(e.currentTarget.value)}
            />
            <PasswordInput
              label="Password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.currentTarget.value)}
            />
            <ErrorAlert error={signIn.error} title="Not signed in" />
            <Button type="submit" loading={signIn.isPending}>
              Sign in
            </Button>
          </Stack>
        </form>
      </Paper>
      <Text size="sm" c="dimmed" mt="md" ta="center">
        No account yet? An owner of your organization (or the operator) sends you an invitation link.
      </Text>
      <Text size="sm" c="dimmed" mt="xs" ta="center">
        Forgot your password? An owner of your organization (operators: another operator) can give you a
        password reset link; the service sends no email.
      </Text>
    </Container>
  )
}
