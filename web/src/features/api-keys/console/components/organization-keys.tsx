import { Button, Code, Loader, Text } from '@mantine/core'
import { ConfirmModal, useConfirmRow } from '../../../../components/confirm-modal.tsx'
import { DataCell, DataRow, DataTable } from '../../../../components/data-table.tsx'
import { ErrorAlert } from '../../../../components/error-alert.tsx'
import { StatusBadge } from '../../../../components/status-badge.tsx'
import { Time } from '../../../../components/time.tsx'
import type { ApiKey } from '../../../../lib/api.ts'
import { useOrgKeys, useRevokeOrgKey } from '../api/organization-keys.ts'

/** An organization's API keys in the console: an operator revokes one after confirming. */
export function OrganizationKeys({ orgId }: { orgId: string }) {
  const keys = useOrgKeys(orgId)
  const revoke = useRevokeOrgKey(orgId)
  const confirm = useConfirmRow<ApiKey>(revoke)
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
                  <Button size="xs" variant="default" color="red" onClick={() => confirm.ask(k)}>
                    Revoke {k.key_prefix}
                  </Button>
                )}
              </DataCell>
            </DataRow>
          ))}
        </DataTable>
      )}
      <ConfirmModal
        {...confirm.modal}
        title="Revoke this key?"
        cancelLabel="Keep it"
        confirmLabel="Revoke"
        confirmColor="red"
      >
        Requests with <Code>{confirm.row?.key_prefix}…</Code> get 401 from now on, so whatever uses it stops
        working. The organization is not notified; the revocation is in its audit log and the platform's. This
        cannot be undone.
      </ConfirmModal>
    </>
  )
}
