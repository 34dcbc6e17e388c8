import { Button, Loader, Stack, Text, TextInput } from '@mantine/core'
import { type FormEvent, type ReactNode, useEffect } from 'react'
import { Link, useNavigate } from 'react-router'
import { ErrorAlert, RefusalAlert } from '../../../components/error-alert.tsx'
import { Time } from '../../../components/time.tsx'
import { readRefusal } from '../../../lib/field-errors.ts'
import { usePasswordReset, useResetPassword } from '../api/session.ts'
import { LinkPage, useLinkToken } from '../components/link-page.tsx'
import { NewPasswordFields, useNewPassword } from '../components/new-password.tsx'

/** /password-reset#token=...: the token stays in the fragment, which browsers never send. */
export function PasswordResetRoute() {
  const token = useLinkToken()
  const reset = usePasswordReset(token)
  const use = useResetPassword()
  const navigate = useNavigate()
  const password = useNewPassword()
  const refusal = readRefusal(use.error, { password: 'New password' })
  useEffect(() => {
    document.title = 'Reset your password · Dashboard'
  }, [])

  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (!password.confirm()) return
    use.mutate({ token, password: password.value }, { onSuccess: () => navigate('/', { replace: true }) })
  }

  let body: ReactNode
  if (!token) {
    body = <ErrorAlert error="This page needs the whole password reset link, as it was given to you." />
  } else if (reset.isPending) {
    body = <Loader aria-label="Loading the password reset link" />
  } else if (reset.error) {
    body = (
      <Stack>
        <ErrorAlert error={reset.error} title="This link cannot be used" />
        <Text size="sm">
          A reset link works once, for an hour, and a newer link replaces it. Ask an owner of your
          organization (operators: another operator) for a new one. Set your password with it already?{' '}
          <Link to="/sign-in">Sign in</Link>.
        </Text>
      </Stack>
    )
  } else {
    const { email, expires_at } = reset.data.data
    body = (
      <form onSubmit={submit}>
        <Stack>
          <Text>
            Choose a new password for <strong>{email}</strong>. Setting it signs you out everywhere else:
            every other session of this account ends, and this one starts.
          </Text>
          <Text size="sm" c="dimmed">
            The link stops working <Time value={expires_at} />.
          </Text>
          <TextInput label="Email" value={email} readOnly autoComplete="username" />
          <NewPasswordFields
            password={password}
            repeatLabel="Repeat the password"
            error={refusal?.fields.password}
          />
          <RefusalAlert refusal={refusal} title="The password was not set" />
          <Button type="submit" loading={use.isPending}>
            Set password and sign in
          </Button>
        </Stack>
      </form>
    )
  }
  return <LinkPage heading="Reset your password">{body}</LinkPage>
}
