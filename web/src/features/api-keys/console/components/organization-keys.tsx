import { Box, Button, Code, Group, Loader, Text, TextInput } from '@mantine/core'
import { type FormEvent, useState } from 'react'
import { ConfirmModal } from '../../../../components/confirm-modal.tsx'
import { DataCell, DataRow, DataTable } from '../../../../components/data-table.tsx'
import { ErrorAlert } from '../../../../components/error-alert.tsx'
import { InvitationLink } from '../../../../components/invitation-link.tsx'
import { StatusBadge } from '../../../../components/status-badge.tsx'
import { Time } from '../../../../components/time.tsx'
import type { ApiKey } from '../../../../lib/api.ts'
import { describeActions } from '../../../automation/components/rule-actions.ts'
import {
  useInviteOwner,
  useOrgKeys,
  useOrgMembers,
  useOrgRules,
  useRevokeOrgKey,
} from '../../../organizations/console/api/organizations.ts'

/** An organization's sections in the console: API keys, members, rules (webhooks: organization-webhooks.tsx). */
export function Keys({ orgId }: { orgId: string }) {
  const keys = useOrgKeys(orgId)
  const revoke = useRevokeOrgKey(orgId)
  const [revoking, setRevoking] = useState<ApiKey | null>(null)
  if (keys.isPending) return <Loader aria-label="Loading API keys" />
  return (
    <>
      <ErrorAlert error={keys.error ?? revoke.error} />
      {keys.data?.length === 0 ? (
        <Text c="dimmed">No keys.</Text>
      ) : (
        <DataTable
          label="API keys"
          columns={[
            'Key',
            'Environment',
            'Created by',
            'Last used',
            'State',
            { label: 'Actions', hidden: true },
          ]}
        >
          {keys.data?.map((k) => (
            <DataRow key={k.id}>
              <DataCell label="Key" title>
                <Code>{k.key_prefix}…</Code>{' '}
                {k.name && (
                  <Text span size="xs">
                    {k.name}
                  </Text>
                )}
              </DataCell>
              <DataCell label="Environment">{k.environment}</DataCell>
              <DataCell label="Created by">{k.created_by}</DataCell>
              <DataCell label="Last used">
                {k.last_used_at ? <Time value={k.last_used_at} /> : 'Never'}
              </DataCell>
              <DataCell label="State">
                <StatusBadge color={k.revoked_at ? 'gray' : 'green'}>
                  {k.revoked_at ? 'Revoked' : 'Active'}
                </StatusBadge>
              </DataCell>
              <DataCell label="Actions" hideLabel>
                {!k.revoked_at && (
                  <Button size="xs" variant="default" color="red" onClick={() => setRevoking(k)}>
                    Revoke {k.key_prefix}
                  </Button>
                )}
              </DataCell>
            </DataRow>
          ))}
        </DataTable>
      )}
      <ConfirmModal
        opened={!!revoking}
        title="Revoke this key?"
        onCancel={() => setRevoking(null)}
        cancelLabel="Keep it"
        confirmLabel="Revoke"
        confirmColor="red"
        busy={revoke.isPending}
        onConfirm={() => revoking && revoke.mutate(revoking.id, { onSettled: () => setRevoking(null) })}
      >
        Requests with <Code>{revoking?.key_prefix}…</Code> get 401 from now on, so whatever uses it stops
        working. The organization is not notified; the revocation is in its audit log and the platform's. This
        cannot be undone.
      </ConfirmModal>
    </>
  )
}

export function Members({ orgId }: { orgId: string }) {
  const members = useOrgMembers(orgId)
  const invite = useInviteOwner()
  const [email, setEmail] = useState('')
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
        <DataTable label="Members" columns={['Email', 'Role', 'Joined']}>
          {members.data?.map((m) => (
            <DataRow key={m.id}>
              <DataCell label="Email" title>
                {m.email}
              </DataCell>
              <DataCell label="Role">{m.role}</DataCell>
              <DataCell label="Joined">
                <Time value={m.created_at} />
              </DataCell>
            </DataRow>
          ))}
        </DataTable>
      )}
      <form onSubmit={submit}>
        <Group align="flex-end" mt="sm">
          <TextInput
            label="Invite an owner (email)"
            w={{ base: '100%', sm: 'auto' }}
            type="email"
            required
            value={email}
            onChange={(e) => setEmail(e.currentTarget.value)}
          />
          <Button type="submit" variant="default" loading={invite.isPending}>
            Invite owner
          </Button>
        </Group>
      </form>
      <ErrorAlert error={invite.error} />
      {invite.data && (
        <Box mt="sm">
          <InvitationLink email={invite.data.invitation.email} url={invite.data.url} />
        </Box>
      )}
    </>
  )
}

/** The organization's automation rules, read only: its owners and developers change them. */
export function AutomationRules({ orgId }: { orgId: string }) {
  const rules = useOrgRules(orgId)
  if (rules.isPending) return <Loader aria-label="Loading automation rules" />
  return (
    <>
      <ErrorAlert error={rules.error} />
      {rules.data?.rules.length === 0 ? (
        <Text c="dimmed">No automation rules.</Text>
      ) : (
        <DataTable
          label="Automation rules, in the order they run"
          columns={['#', 'Name', 'State', 'When', 'Then']}
        >
          {rules.data?.rules.map((r) => (
            <DataRow key={r.id}>
              <DataCell label="Position">{r.position}</DataCell>
              <DataCell label="Name" title>
                {r.name}
              </DataCell>
              <DataCell label="State">
                <StatusBadge color={r.enabled ? 'green' : 'gray'}>
                  {r.enabled ? 'Enabled' : 'Disabled'}
                </StatusBadge>
              </DataCell>
              <DataCell label="When">{r.description}</DataCell>
              <DataCell label="Then">{describeActions(r.actions)}</DataCell>
            </DataRow>
          ))}
        </DataTable>
      )}
    </>
  )
}
