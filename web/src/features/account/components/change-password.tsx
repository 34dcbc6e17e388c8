import { Alert, Button, Paper, PasswordInput, Stack, Title } from '@mantine/core'
import { type FormEvent, useState } from 'react'
import { RefusalAlert } from '../../../components/error-alert.tsx'
import { readRefusal } from '../../../lib/field-errors.ts'
import { NewPasswordFields, useNewPassword } from '../../auth/components/new-password.tsx'
import { useChangePassword } from '../api/account.ts'

export function ChangePassword() {
  const change = useChangePassword()
  const [current, setCurrent] = useState('')
  const next = useNewPassword()
  const refusal = readRefusal(
    change.error,
    { current_password: 'Current password', new_password: 'New password' },
    { password_incorrect: 'current_password' },
  )

  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (!next.confirm()) return
    change.mutate(
      { current_password: current, new_password: next.value },
      {
        onSuccess: () => {
          setCurrent('')
          next.clear()
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
            maxLength={200}
            value={current}
            error={refusal?.fields.current_password}
            onChange={(e) => setCurrent(e.currentTarget.value)}
          />
          <NewPasswordFields
            password={next}
            note="Your other sessions are signed out."
            repeatLabel="Repeat the new password"
            error={refusal?.fields.new_password}
          />
          <RefusalAlert refusal={refusal} title="The password was not changed" />
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
