import { Loader, Text } from '@mantine/core'
import { DataCell, DataRow, DataTable } from '../../../../components/data-table.tsx'
import { ErrorAlert } from '../../../../components/error-alert.tsx'
import { StatusBadge } from '../../../../components/status-badge.tsx'
import { describeActions } from '../../components/rule-actions.ts'
import { useOrgRules } from '../api/organization-rules.ts'

/** The organization's automation rules, read only: its owners and developers change them. */
export function OrganizationRules({ orgId }: { orgId: string }) {
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
