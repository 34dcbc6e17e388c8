import { Button, Code, Loader, Table, Text } from '@mantine/core'
import { useState } from 'react'
import { ConfirmModal } from '../../../components/confirm-modal.tsx'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { StatusBadge } from '../../../components/status-badge.tsx'
import { Time } from '../../../components/time.tsx'
import type { ApiKey } from '../../../lib/api.ts'
import { useApiKeys, useRevokeApiKey } from '../api/api-keys.ts'

function state(key: ApiKey): { label: string; color: string } {
  if (key.revoked_at) return { label: 'Revoked', color: 'gray' }
  if (key.expires_at && new Date(key.expires_at) <= new Date()) return { label: 'Expired', color: 'gray' }
  return { label: 'Active', color: 'green' }
}

export function KeysTable({ canManage }: { canManage: boolean }) {
  const keys = useApiKeys()
  const revoke = useRevokeApiKey()
  const [revoking, setRevoking] = useState<ApiKey | null>(null)

  if (keys.isPending) return <Loader aria-label="Loading API keys" />
  return (
    <>
      <ErrorAlert error={keys.error ?? revoke.error} />
      {keys.data?.length === 0 ? (
        <Text c="dimmed">No keys yet.</Text>
      ) : (
        <Table.ScrollContainer minWidth={900}>
          <Table striped aria-label="API keys">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Key</Table.Th>
                <Table.Th>Environment</Table.Th>
                <Table.Th>Scopes</Table.Th>
                <Table.Th>Created by</Table.Th>
                <Table.Th>Created</Table.Th>
                <Table.Th>Last used</Table.Th>
                <Table.Th>Expires</Table.Th>
                <Table.Th>State</Table.Th>
                {canManage && <Table.Th>Actions</Table.Th>}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {keys.data?.map((k) => {
                const s = state(k)
                return (
                  <Table.Tr key={k.id}>
                    <Table.Td>
                      <Code>{k.key_prefix}…</Code>
                      {k.name && <Text size="xs">{k.name}</Text>}
                    </Table.Td>
                    <Table.Td>
                      <StatusBadge color={k.environment === 'live' ? 'blue' : 'yellow'}>
                        {k.environment}
                      </StatusBadge>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">{k.scopes.join(', ')}</Text>
                    </Table.Td>
                    <Table.Td>{k.created_by}</Table.Td>
                    <Table.Td>
                      <Time value={k.created_at} />
                    </Table.Td>
                    <Table.Td>{k.last_used_at ? <Time value={k.last_used_at} /> : 'Never'}</Table.Td>
                    <Table.Td>{k.expires_at ? <Time value={k.expires_at} /> : 'Never'}</Table.Td>
                    <Table.Td>
                      <StatusBadge color={s.color}>{s.label}</StatusBadge>
                    </Table.Td>
                    {canManage && (
                      <Table.Td>
                        {!k.revoked_at && (
                          <Button
                            variant="subtle"
                            color="red"
                            aria-label={`Revoke ${k.key_prefix}`}
                            onClick={() => setRevoking(k)}
                          >
                            Revoke
                          </Button>
                        )}
                      </Table.Td>
                    )}
                  </Table.Tr>
                )
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <ConfirmModal
        opened={revoking !== null}
        title="Revoke API key"
        onCancel={() => setRevoking(null)}
        confirmLabel="Revoke key"
        busy={revoke.isPending}
        onConfirm={() => revoking && revoke.mutate(revoking.id, { onSettled: () => setRevoking(null) })}
      >
        Revoke {revoking?.key_prefix}…? Every request with it fails from now on. This cannot be undone.
      </ConfirmModal>
    </>
  )
}
