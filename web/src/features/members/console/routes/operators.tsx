import { Badge, Button, Card, Group, Loader, Stack, Text, TextInput, Title } from '@mantine/core'
import { type FormEvent, useState } from 'react'
import { ConfirmModal, useConfirmRow } from '../../../../components/confirm-modal.tsx'
import { DataCell, DataRow, DataTable } from '../../../../components/data-table.tsx'
import { ErrorAlert, RefusalAlert } from '../../../../components/error-alert.tsx'
import { InvitationLink } from '../../../../components/invitation-link.tsx'
import { Page } from '../../../../components/page.tsx'
import { Time } from '../../../../components/time.tsx'
import type { Operator } from '../../../../lib/api.ts'
import { readRefusal } from '../../../../lib/field-errors.ts'
import { useAccount } from '../../../auth/api/session.ts'
import { InvitationsTable } from '../../components/invitations-table.tsx'
import { usePasswordResetAction } from '../../components/password-reset.tsx'
import {
  useInviteOperator,
  useIssueOperatorPasswordReset,
  useOperatorInvitations,
  useOperators,
  useRemoveOperator,
  useRevokeOperatorInvitation,
} from '../api/operators.ts'

function InviteOperator() {
  const invite = useInviteOperator()
  const [email, setEmail] = useState('')
  const refusal = readRefusal(invite.error, { email: 'Email' }, { member_exists: 'email' })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    invite.mutate(email.trim(), { onSuccess: () => setEmail('') })
  }
  return (
    <Card withBorder padding="md" component="section" aria-labelledby="invite-operator">
      <Title order={2} size="h4" id="invite-operator" mb="sm">
        Invite an operator
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
            w={{ base: '100%', sm: 280 }}
          />
          <Button type="submit" loading={invite.isPending}>
            Create invitation
          </Button>
        </Group>
      </form>
      <Stack mt={invite.error || invite.data ? 'md' : 0}>
        <RefusalAlert refusal={refusal} title="No invitation was created" />
        {invite.data && (
          <InvitationLink email={invite.data.invitation.email} url={invite.data.url} to="the new operator" />
        )}
      </Stack>
    </Card>
  )
}

function OperatorAccounts() {
  const me = useAccount().data?.operator
  const operators = useOperators()
  const remove = useRemoveOperator()
  const confirm = useConfirmRow<Operator>(remove)
  const reset = usePasswordResetAction<Operator>(useIssueOperatorPasswordReset())
  if (operators.isPending) return <Loader aria-label="Loading operators" />
  return (
    <>
      <ErrorAlert error={operators.error ?? remove.error} />
      {remove.data && (
        <Text role="status">
          Removed {remove.data.operator.email}: {remove.data.sessions_ended} session
          {remove.data.sessions_ended === 1 ? '' : 's'} ended.
        </Text>
      )}
      <DataTable
        label="Operator accounts, oldest first"
        caption
        columns={['Email', 'Operator since', { label: 'Actions', hidden: true }]}
      >
        {operators.data?.map((o) => (
          <DataRow key={o.id}>
            <DataCell label="Email" title>
              {o.email} {o.id === me?.id && <Badge variant="light">You</Badge>}
            </DataCell>
            <DataCell label="Operator since">
              <Time value={o.created_at} />
            </DataCell>
            <DataCell label="Actions" hideLabel>
              {o.id !== me?.id && (
                <Group gap="xs" wrap="wrap">
                  <Button
                    variant="subtle"
                    aria-label={`Reset password of ${o.email}`}
                    onClick={() => reset.ask(o)}
                  >
                    Reset password
                  </Button>
                  <Button
                    variant="subtle"
                    color="red"
                    aria-label={`Remove ${o.email}`}
                    onClick={() => {
                      remove.reset()
                      confirm.ask(o)
                    }}
                  >
                    Remove
                  </Button>
                </Group>
              )}
            </DataCell>
          </DataRow>
        ))}
      </DataTable>
      {reset.shown}
      {reset.modal}
      <ConfirmModal {...confirm.modal} title="Remove operator" confirmLabel="Remove operator">
        {`Remove ${confirm.row?.email}? Every session of the account ends now and the email can be invited again. No message is sent to them; the removal is in the platform audit log.`}
      </ConfirmModal>
    </>
  )
}

function PendingOperatorInvitations() {
  const invitations = useOperatorInvitations()
  const revoke = useRevokeOperatorInvitation()
  return (
    <section aria-labelledby="operator-invitations">
      <Title order={2} size="h4" id="operator-invitations" mb="sm">
        Pending invitations
      </Title>
      <ErrorAlert error={invitations.error ?? revoke.error} />
      {invitations.isPending ? (
        <Loader aria-label="Loading invitations" />
      ) : invitations.data?.length ? (
        <InvitationsTable
          label="Pending operator invitations"
          columns={['Email', 'Invited', 'Expires', { label: 'Actions', hidden: true }]}
          invitations={invitations.data}
          cells={(i) => (
            <DataCell label="Invited">
              <Time value={i.created_at} />
            </DataCell>
          )}
          revoke={revoke}
          warning={(email) =>
            `Revoke the invitation for ${email}? Its link stops working at once. No message is sent to them: whoever opens the link is told it no longer works.`
          }
        />
      ) : (
        <Text c="dimmed">No pending operator invitations.</Text>
      )}
    </section>
  )
}

export function OperatorsRoute() {
  return (
    <Page
      title="Operators"
      lead="The platform's operator accounts. Removing one ends its sessions at once; nobody removes their own account, and the operator token (OPERATOR_TOKEN) always remains."
    >
      <InviteOperator />
      <OperatorAccounts />
      <PendingOperatorInvitations />
    </Page>
  )
}
