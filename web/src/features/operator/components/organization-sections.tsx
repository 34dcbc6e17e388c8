import { Button, Code, Group, Loader, SegmentedControl, Table, Text, TextInput, Title } from '@mantine/core'
import { type FormEvent, useState } from 'react'
import { useSearchParams } from 'react-router'
import { ConfirmModal } from '../../../components/confirm-modal.tsx'
import { DeliveryStatus } from '../../../components/delivery-status.tsx'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { NextPageButton } from '../../../components/next-page-button.tsx'
import { describeActions } from '../../../components/rule-actions.ts'
import { StatusBadge } from '../../../components/status-badge.tsx'
import { Time } from '../../../components/time.tsx'
import type { ApiKey } from '../../../lib/api.ts'
import { exactTime } from '../../../lib/format.ts'
import {
  useInviteOwner,
  useOrgDeliveries,
  useOrgEndpoints,
  useOrgKeys,
  useOrgMembers,
  useOrgRules,
  useRedeliver,
  useRevokeOrgKey,
} from '../api/organizations.ts'
import { InvitationLink } from '../components/invitation-link.tsx'

/** An organization's sections in the console: its API keys, its members, its webhooks. */
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
        <Table.ScrollContainer minWidth={700}>
          <Table striped aria-label="API keys">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Key</Table.Th>
                <Table.Th>Environment</Table.Th>
                <Table.Th>Created by</Table.Th>
                <Table.Th>Last used</Table.Th>
                <Table.Th>State</Table.Th>
                <Table.Th>Actions</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {keys.data?.map((k) => (
                <Table.Tr key={k.id}>
                  <Table.Td>
                    <Code>{k.key_prefix}…</Code>{' '}
                    {k.name && (
                      <Text span size="xs">
                        {k.name}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>{k.environment}</Table.Td>
                  <Table.Td>{k.created_by}</Table.Td>
                  <Table.Td>{k.last_used_at ? <Time value={k.last_used_at} /> : 'Never'}</Table.Td>
                  <Table.Td>
                    <StatusBadge color={k.revoked_at ? 'gray' : 'green'}>
                      {k.revoked_at ? 'Revoked' : 'Active'}
                    </StatusBadge>
                  </Table.Td>
                  <Table.Td>
                    {!k.revoked_at && (
                      <Button size="xs" variant="default" color="red" onClick={() => setRevoking(k)}>
                        Revoke {k.key_prefix}
                      </Button>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
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
        Requests with <Code>{revoking?.key_prefix}…</Code> fail from now on. This cannot be undone.
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
        <Table striped aria-label="Members">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Email</Table.Th>
              <Table.Th>Role</Table.Th>
              <Table.Th>Joined</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {members.data?.map((m) => (
              <Table.Tr key={m.id}>
                <Table.Td>{m.email}</Table.Td>
                <Table.Td>{m.role}</Table.Td>
                <Table.Td>
                  <Time value={m.created_at} />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <form onSubmit={submit}>
        <Group align="flex-end" mt="sm">
          <TextInput
            label="Invite an owner (email)"
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
      {invite.data && <InvitationLink email={invite.data.invitation.email} url={invite.data.url} />}
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
        <Table.ScrollContainer minWidth={700}>
          <Table striped aria-label="Automation rules, in the order they run">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>#</Table.Th>
                <Table.Th>Name</Table.Th>
                <Table.Th>State</Table.Th>
                <Table.Th>When</Table.Th>
                <Table.Th>Then</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rules.data?.rules.map((r) => (
                <Table.Tr key={r.id}>
                  <Table.Td>{r.position}</Table.Td>
                  <Table.Td>{r.name}</Table.Td>
                  <Table.Td>
                    <StatusBadge color={r.enabled ? 'green' : 'gray'}>
                      {r.enabled ? 'Enabled' : 'Disabled'}
                    </StatusBadge>
                  </Table.Td>
                  <Table.Td>{r.description}</Table.Td>
                  <Table.Td>{describeActions(r.actions)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </>
  )
}

export function Webhooks({ orgId }: { orgId: string }) {
  const [params, setParams] = useSearchParams()
  const environment = params.get('environment') === 'test' ? 'test' : 'live'
  const endpoints = useOrgEndpoints(orgId, environment)
  const deliveries = useOrgDeliveries(orgId, environment)
  const redeliver = useRedeliver(orgId)
  const rows = deliveries.data?.pages.flatMap((p) => p.data) ?? []
  const urlOf = new Map(endpoints.data?.map((e) => [e.id, e.url]))
  return (
    <>
      <div>
        <Text size="sm" fw={500} id="org-environment-label">
          Environment
        </Text>
        <SegmentedControl
          aria-labelledby="org-environment-label"
          value={environment}
          onChange={(v) => setParams({ environment: v }, { replace: true })}
          data={[
            { value: 'live', label: 'Live' },
            { value: 'test', label: 'Test' },
          ]}
        />
      </div>
      <ErrorAlert error={endpoints.error ?? deliveries.error ?? redeliver.error} />
      {endpoints.data?.length === 0 ? (
        <Text c="dimmed">No {environment} endpoints.</Text>
      ) : (
        <Table striped aria-label={`Webhook endpoints (${environment})`}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>URL</Table.Th>
              <Table.Th>State</Table.Th>
              <Table.Th>Failures in a row</Table.Th>
              <Table.Th>Last success</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {endpoints.data?.map((e) => (
              <Table.Tr key={e.id}>
                <Table.Td style={{ wordBreak: 'break-all' }}>{e.url}</Table.Td>
                <Table.Td>
                  <StatusBadge color={e.is_active ? (e.consecutive_failures ? 'orange' : 'green') : 'gray'}>
                    {e.is_active
                      ? e.consecutive_failures
                        ? 'Failing'
                        : 'Active'
                      : (e.disabled_reason ?? 'Deleted')}
                  </StatusBadge>
                </Table.Td>
                <Table.Td>{e.consecutive_failures}</Table.Td>
                <Table.Td>{e.last_success_at ? <Time value={e.last_success_at} /> : 'Never'}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <Title order={3} size="h5" mt="md">
        Deliveries ({environment}), newest first
      </Title>
      {rows.length === 0 ? (
        <Text c="dimmed">No deliveries.</Text>
      ) : (
        <Table.ScrollContainer minWidth={800}>
          <Table striped aria-label={`Webhook deliveries (${environment})`}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Created</Table.Th>
                <Table.Th>Event</Table.Th>
                <Table.Th>Endpoint</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Attempts</Table.Th>
                <Table.Th>Last answer</Table.Th>
                <Table.Th>Actions</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((d) => (
                <Table.Tr key={d.id}>
                  <Table.Td>
                    <Time value={d.created_at} exact />
                  </Table.Td>
                  <Table.Td>
                    <Code>{d.event_type}</Code>
                  </Table.Td>
                  <Table.Td style={{ wordBreak: 'break-all' }}>
                    {urlOf.get(d.endpoint_id) ?? d.endpoint_id}
                  </Table.Td>
                  <Table.Td>
                    <DeliveryStatus status={d.status} />
                  </Table.Td>
                  <Table.Td>{d.attempts}</Table.Td>
                  <Table.Td>{d.response_status ?? d.error_code ?? ''}</Table.Td>
                  <Table.Td>
                    <Button
                      size="xs"
                      variant="default"
                      loading={redeliver.isPending && redeliver.variables === d.id}
                      onClick={() => redeliver.mutate(d.id)}
                      aria-label={`Redeliver ${d.event_type} of ${exactTime(d.created_at)}`}
                    >
                      Redeliver
                    </Button>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <NextPageButton pages={deliveries}>Show older deliveries</NextPageButton>
    </>
  )
}
