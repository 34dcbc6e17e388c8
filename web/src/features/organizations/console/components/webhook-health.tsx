import { Group } from '@mantine/core'
import { StatusBadge } from '../../../../components/status-badge.tsx'
import { formatNumber } from '../../../../lib/format.ts'
import type { OrganizationSummary } from '../api/organizations.ts'

/** An organization's live webhook health in words (the dot only repeats them). */
export function WebhookHealth({ health }: { health: OrganizationSummary['webhooks']['live'] }) {
  const troubled = health.disabled_endpoints > 0 || health.failed_deliveries_24h > 0
  return (
    <Group gap={6}>
      <StatusBadge color={health.active_endpoints > 0 ? 'green' : 'gray'}>
        {formatNumber(health.active_endpoints)} active
      </StatusBadge>
      {health.failing_endpoints > 0 && (
        <StatusBadge color="orange">{formatNumber(health.failing_endpoints)} failing</StatusBadge>
      )}
      {troubled && (
        <StatusBadge color="red">
          {formatNumber(health.disabled_endpoints)} disabled, {formatNumber(health.failed_deliveries_24h)}{' '}
          failed (24 h)
        </StatusBadge>
      )}
    </Group>
  )
}
