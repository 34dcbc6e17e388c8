import { Box, Button, Group, Loader, Text, TextInput } from '@mantine/core'
import { type FormEvent, useState } from 'react'
import { DataCell, DataRow, DataTable } from '../../../../components/data-table.tsx'
import { ErrorAlert, RefusalAlert } from '../../../../components/error-alert.tsx'
import { InvitationLink } from '../../../../components/invitation-link.tsx'
import { Time } from '../../../../components/time.tsx'
import { readRefusal } from '../../../../lib/field-errors.ts'
import { usePasswordResetAction } from '../../components/password-reset.tsx'
import { useInviteOwner, useIssueMemberPasswordReset, useOrgMembers } from '../api/organization-members.ts'

/** An organization's members in the console, and the invitation of an owner. */
export function OrganizationMembers({ orgId }: { orgId: string }) {
  const members = useOrgMembers(orgId)
  const invite = useInviteOwner()
  const reset = usePasswordResetAction<{ id: string; email: string }>(useIssueMemberPasswordReset(orgId))
  const [email, setEmail] = useState('')
  const refusal = readRefusal(invite.error, { email: 'Email' }, { member_exists: 'email' })
  function submit(event: FormEvent) {
    event.preventDefault()
    invite.mutate({ orgId, email: email.trim() })
  }
  if (members.isPending) return <Loader aria-label="Loading members" />
  return (
    <>
      <ErrorAlert error={members.error} />
      {members.data?.length === 0 ? (
        <Text c="dimmed">No members yet: invite the first owner.</Text>
      ) : (
        <DataTable label="Members" columns={['Email', 'Role', 'Joined', { label: 'Actions', hidden: true }]}>
          {members.data?.map((m) => (
            <DataRow key={m.id}>
              <DataCell label="Email" title>
                {m.email}
              </DataCell>
              <DataCell label="Role">{m.role}</DataCell>
              <DataCell label="Joined">
                <Time value={m.created_at} />
              </DataCell>
              <DataCell label="Actions" hideLabel>
                <Button
                  variant="subtle"
                  aria-label={`Reset password of ${m.email}`}
                  onClick={() => reset.ask(m)}
                >
                  Reset password
                </Button>
              </DataCell>
            </DataRow>
          ))}
        </DataTable>
      )}
      {reset.shown}
      {reset.modal}
      <form onSubmit={submit}>
        <Group align="flex-end" mt="sm">
          <TextInput
            label="Invite an owner (email)"
            w={{ base: '100%', sm: 'auto' }}
            type="email"
            required
            maxLength={320}
            value={email}
            error={refusal?.fields.email}
            onChange={(e) => setEmail(e.currentTarget.value)}
          />
          <Button type="submit" variant="default" loading={invite.isPending}>
            Invite owner
          </Button>
        </Group>
      </form>
      <RefusalAlert refusal={refusal} title="No invitation was created" />
      {invite.data && (
        <Box mt="sm">
          <InvitationLink email={invite.data.invitation.email} url={invite.data.url} />
        </Box>
      )}
    </>
  )
}
