import { Button, Code, Loader, Text } from '@mantine/core'
import { ConfirmModal, useConfirmRow } from '../../../components/confirm-modal.tsx'
import { DataCell, DataRow, DataTable } from '../../../components/data-table.tsx'
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
  const confirm = useConfirmRow<ApiKey>(revoke)

  if (keys.isPending) return <Loader aria-label="Loading API keys" />
  return (
    <>
      <ErrorAlert error={keys.error ?? revoke.error} />
      {keys.data?.length === 0 ? (
        <Text c="dimmed">No keys yet.</Text>
      ) : (
        <DataTable
          label="API keys"
          columns={[
            'Key',
            'Environment',
            'Scopes',
            'Created by',
            'Created',
            'Last used',
            'Expires',
            'State',
            ...(canManage ? [{ label: 'Actions', hidden: true }] : []),
          ]}
        >
          {keys.data?.map((k) => {
            const s = state(k)
            return (
              <DataRow key={k.id}>
                <DataCell label="Key" title>
                  <Code>{k.key_prefix}…</Code>
                  {k.name && (
                    <Text size="xs" component="span" display="block">
                      {k.name}
                    </Text>
                  )}
                </DataCell>
                <DataCell label="Environment">
                  <StatusBadge color={k.environment === 'live' ? 'blue' : 'yellow'}>
                    {k.environment}
                  </StatusBadge>
                </DataCell>
                <DataCell label="Scopes">{k.scopes.join(', ')}</DataCell>
                <DataCell label="Created by">{k.created_by}</DataCell>
                <DataCell label="Created">
                  <Time value={k.created_at} />
                </DataCell>
                <DataCell label="Last used">
                  {k.last_used_at ? <Time value={k.last_used_at} /> : 'Never'}
                </DataCell>
                <DataCell label="Expires">{k.expires_at ? <Time value={k.expires_at} /> : 'Never'}</DataCell>
                <DataCell label="State">
                  <StatusBadge color={s.color}>{s.label}</StatusBadge>
                </DataCell>
                {canManage && (
                  <DataCell label="Actions" hideLabel>
                    {!k.revoked_at && (
                      <Button
                        variant="subtle"
                        color="red"
                        aria-label={`Revoke ${k.key_prefix}`}
                        onClick={() => confirm.ask(k)}
                      >
                        Revoke
                      </Button>
                    )}
                  </DataCell>
                )}
              </DataRow>
            )
          })}
        </DataTable>
      )}
      <ConfirmModal {...confirm.modal} title="Revoke API key" confirmLabel="Revoke key">
        Revoke {confirm.row?.key_prefix}…? Every request with it gets 401 from now on, so whatever uses it
        stops working. Nobody is notified; the revocation is in the audit log. This cannot be undone.
      </ConfirmModal>
    </>
  )
}
