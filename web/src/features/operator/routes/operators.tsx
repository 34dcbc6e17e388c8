import { Badge, Button, Card, Group, Loader, Stack, Table, Text, TextInput, Title } from '@mantine/core'
import { type FormEvent, useState } from 'react'
import { ConfirmModal } from '../../../components/confirm-modal.tsx'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { Page } from '../../../components/page.tsx'
import { Time } from '../../../components/time.tsx'
import type { Operator, OperatorInvitation } from '../../../lib/api.ts'
import { useAccount } from '../../auth/api/session.ts'
import {
  useInviteOperator,
  useOperatorInvitations,
  useOperators,
  useRemoveOperator,
  useRevokeOperatorInvitation,
} from '../api/operators.ts'
import { InvitationLink } from '../components/invitation-link.tsx'

function InviteOperator() {
  const invite = useInviteOperator()
  const [email, setEmail] = useState('')
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
            value={email}
            onChange={(e) => setEmail(e.currentTarget.value)}
            w={280}
          />
          <Button type="submit" loading={invite.isPending}>
            Create invitation
          </Button>
        </Group>
      </form>
      <Stack mt={invite.error || invite.data ? 'md' : 0}>
        <ErrorAlert error={invite.error} title="No invitation was created" />
        {invite.data && (
          <InvitationLink email={invite.data.invitation.email} url={invite.data.url} to="the new operator" />
        )}
      </Stack>
    </Card>
  )
}

/** A red action behind a confirmation dialog. */
function Confirm<T extends { email: string }>(props: {
  target: T | null
  title: string
  text: string
  action: string
  pending: boolean
  onConfirm: (target: T) => void
  onClose: () => void
}) {
  return (
    <ConfirmModal
      opened={props.target !== null}
      title={props.title}
      onCancel={props.onClose}
      confirmLabel={props.action}
      busy={props.pending}
      onConfirm={() => props.target && props.onConfirm(props.target)}
    >
      {props.text}
    </ConfirmModal>
  )
}

function OperatorAccounts() {
  const me = useAccount().data?.operator
  const operators = useOperators()
  const remove = useRemoveOperator()
  const [removing, setRemoving] = useState<Operator | null>(null)
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
      <Table striped>
        <Table.Caption>Operator accounts, oldest first</Table.Caption>
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">Email</Table.Th>
            <Table.Th scope="col">Operator since</Table.Th>
            <Table.Th scope="col">Actions</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {operators.data?.map((o) => (
            <Table.Tr key={o.id}>
              <Table.Td>
                {o.email} {o.id === me?.id && <Badge variant="light">You</Badge>}
              </Table.Td>
              <Table.Td>
                <Time value={o.created_at} />
              </Table.Td>
              <Table.Td>
                {o.id !== me?.id && (
                  <Button
                    variant="subtle"
                    color="red"
                    aria-label={`Remove ${o.email}`}
                    onClick={() => {
                      remove.reset()
                      setRemoving(o)
                    }}
                  >
                    Remove
                  </Button>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Confirm
        target={removing}
        title="Remove operator"
        text={`Remove ${removing?.email}? Every session of the account ends now and the email can be invited again.`}
        action="Remove operator"
        pending={remove.isPending}
        onConfirm={(o) => remove.mutate(o.id, { onSettled: () => setRemoving(null) })}
        onClose={() => setRemoving(null)}
      />
    </>
  )
}

function PendingOperatorInvitations() {
  const invitations = useOperatorInvitations()
  const revoke = useRevokeOperatorInvitation()
  const [revoking, setRevoking] = useState<OperatorInvitation | null>(null)
  return (
    <section aria-labelledby="operator-invitations">
      <Title order={2} size="h4" id="operator-invitations" mb="sm">
        Pending invitations
      </Title>
      <ErrorAlert error={invitations.error ?? revoke.error} />
      {invitations.isPending ? (
        <Loader aria-label="Loading invitations" />
      ) : invitations.data?.length ? (
        <Table striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Email</Table.Th>
              <Table.Th scope="col">Invited</Table.Th>
              <Table.Th scope="col">Expires</Table.Th>
              <Table.Th scope="col">Actions</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {invitations.data.map((i) => (
              <Table.Tr key={i.id}>
                <Table.Td>{i.email}</Table.Td>
                <Table.Td>
                  <Time value={i.created_at} />
                </Table.Td>
                <Table.Td>
                  <Time value={i.expires_at} />
                </Table.Td>
                <Table.Td>
                  <Button
                    variant="subtle"
                    color="red"
                    aria-label={`Revoke the invitation for ${i.email}`}
                    onClick={() => {
                      revoke.reset()
                      setRevoking(i)
                    }}
                  >
                    Revoke
                  </Button>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      ) : (
        <Text c="dimmed">No pending operator invitations.</Text>
      )}
      <Confirm
        target={revoking}
        title="Revoke invitation"
        text={`Revoke the invitation for ${revoking?.email}? Its link stops working at once.`}
        action="Revoke invitation"
        pending={revoke.isPending}
        onConfirm={(i) => revoke.mutate(i.id, { onSettled: () => setRevoking(null) })}
        onClose={() => setRevoking(null)}
      />
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
