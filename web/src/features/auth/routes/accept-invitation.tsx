import { Button, Loader, Stack, Text, TextInput } from '@mantine/core'
import { type FormEvent, type ReactNode, useEffect } from 'react'
import { Link, useNavigate } from 'react-router'
import { ErrorAlert, RefusalAlert } from '../../../components/error-alert.tsx'
import { readRefusal } from '../../../lib/field-errors.ts'
import { useAcceptInvitation, useInvitation } from '../api/session.ts'
import { LinkPage, useLinkToken } from '../components/link-page.tsx'
import { NewPasswordFields, useNewPassword } from '../components/new-password.tsx'

/** /invitation#token=...: the token stays in the fragment, which browsers never send. */
export function AcceptInvitationRoute() {
  const token = useLinkToken()
  const invitation = useInvitation(token)
  const accept = useAcceptInvitation()
  const navigate = useNavigate()
  const password = useNewPassword()
  const refusal = readRefusal(accept.error, { password: 'New password' })
  useEffect(() => {
    document.title = 'Accept invitation · Dashboard'
  }, [])

  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (!password.confirm()) return
    accept.mutate({ token, password: password.value }, { onSuccess: () => navigate('/', { replace: true }) })
  }

  let body: ReactNode
  if (!token) {
    body = <ErrorAlert error="This page needs the whole invitation link, as it was given to you." />
  } else if (invitation.isPending) {
    body = <Loader aria-label="Loading the invitation" />
  } else if (invitation.error) {
    body = (
      <Stack>
        <ErrorAlert error={invitation.error} title="This invitation cannot be used" />
        <Text size="sm">
          Already accepted it? <Link to="/sign-in">Sign in</Link>.
        </Text>
      </Stack>
    )
  } else {
    const { email, role, organization } = invitation.data.data
    const invitedTo = organization ? (
      <>
        You are invited to <strong>{organization.name}</strong> as <strong>{role}</strong>.
      </>
    ) : (
      <>
        You are invited as an <strong>operator</strong> of the platform.
      </>
    )
    body = (
      <form onSubmit={submit}>
        <Stack>
          <Text>{invitedTo} Choose a password to finish.</Text>
          <TextInput label="Email" value={email} readOnly autoComplete="username" />
          <NewPasswordFields
            password={password}
            repeatLabel="Repeat the password"
            error={refusal?.fields.password}
          />
          <RefusalAlert refusal={refusal} title="The password was not set" />
          <Button type="submit" loading={accept.isPending}>
            Set password and sign in
          </Button>
        </Stack>
      </form>
    )
  }
  return <LinkPage heading="Accept your invitation">{body}</LinkPage>
}
