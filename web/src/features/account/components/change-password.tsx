import { Alert, Button, Paper, PasswordInput, Stack, Title } from '@mantine/core'
import { type FormEvent, useState } from 'react'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { PASSWORD_MIN } from '../../auth/routes/accept-invitation.tsx'
import { useChangePassword } from '../api/account.ts'

export function ChangePassword() {
  const change = useChangePassword()
  const [current, setCurrent] = useState('')
  const [next, setNext] = useState('')
  const [repeat, setRepeat] = useState('')
  const [mismatch, setMismatch] = useState(false)

  const submit = (e: FormEvent) => {
    e.preventDefault()
    setMismatch(next !== repeat)
    if (next !== repeat) return
    change.mutate(
      { current_password: current, new_password: next },
      {
        onSuccess: () => {
          setCurrent('')
          setNext('')
          setRepeat('')
        },
      },
    )
  }
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby="password-heading">
      <Title order={2} size="h3" id="password-heading" mb="sm">
        Password
      </Title>
      <form onSubmit={submit}>
        <Stack maw={420}>
          <PasswordInput
            label="Current password"
            autoComplete="current-password"
            required
            value={current}
            onChange={(e) => setCurrent(e.currentTarget.value)}
          />
          <PasswordInput
            label="New password"
            description={`At least ${PASSWORD_MIN} characters. Your other sessions are signed out.`}
            autoComplete="new-password"
            required
            minLength={PASSWORD_MIN}
            value={next}
            onChange={(e) => setNext(e.currentTarget.value)}
          />
          <PasswordInput
            label="Repeat the new password"
            autoComplete="new-password"
            required
            value={repeat}
            error={mismatch ? 'The two passwords differ.' : undefined}
            onChange={(e) => setRepeat(e.currentTarget.value)}
          />
          <ErrorAlert error={change.error} title="The password was not changed" />
          {change.isSuccess && (
            <Alert color="green" variant="default" role="status">
              Password changed. {change.data.sessions_ended} other session
              {change.data.sessions_ended === 1 ? ' was' : 's were'} signed out.
            </Alert>
          )}
          <Button type="submit" loading={change.isPending} w="fit-content">
            Change password
          </Button>
        </Stack>
      </form>
    </Paper>
  )
}
