import { Alert, Button, Group, Paper, Select, Stack, TextInput, Title } from '@mantine/core'
import { type FormEvent, useState } from 'react'
import { CopyTextButton } from '../../../components/copy-text-button.tsx'
import { RefusalAlert } from '../../../components/error-alert.tsx'
import { readRefusal } from '../../../lib/field-errors.ts'
import { ROLES, type Role, useInvite } from '../api/members.ts'

/** Owners invite: the link is shown here to copy and pass on (the service sends no email). */
export function InviteForm() {
  const invite = useInvite()
  const [email, setEmail] = useState('')
  const [role, setRole] = useState<Role>('developer')
  const refusal = readRefusal(invite.error, { email: 'Email', role: 'Role' }, { member_exists: 'email' })

  const submit = (e: FormEvent) => {
    e.preventDefault()
    invite.mutate({ email, role }, { onSuccess: () => setEmail('') })
  }
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby="invite-heading">
      <Title order={2} size="h3" id="invite-heading" mb="sm">
        Invite a member
      </Title>
      <form onSubmit={submit}>
        <Group align="flex-end">
          <TextInput
            label="Email"
            type="email"
            required
            maxLength={320}
            value={email}
            error={refusal?.fields.email}
            onChange={(e) => setEmail(e.currentTarget.value)}
            w={280}
          />
          <Select
            label="Role"
            data={ROLES}
            value={role}
            onChange={(v) => v && setRole(v as Role)}
            allowDeselect={false}
            w={160}
          />
          <Button type="submit" loading={invite.isPending}>
            Create invitation
          </Button>
        </Group>
      </form>
      <Stack mt="md">
        <RefusalAlert refusal={refusal} title="No invitation was created" />
        {invite.data && (
          <Alert
            color="green"
            variant="default"
            role="status"
            title={`Invitation for ${invite.data.invitation.email}`}
          >
            <Stack gap="xs">
              <span>Pass this link on; it works once, for 7 days, and is not shown again.</span>
              <Group align="flex-end" wrap="nowrap">
                <TextInput label="Invitation link" value={invite.data.url} readOnly style={{ flex: 1 }} />
                <CopyTextButton value={invite.data.url} variant="light">
                  Copy link
                </CopyTextButton>
              </Group>
            </Stack>
          </Alert>
        )}
      </Stack>
    </Paper>
  )
}
