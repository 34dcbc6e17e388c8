import { StatusBadge } from '../../../components/status-badge.tsx'
import type { Endpoint } from '../../../lib/api.ts'

const REASONS: Record<string, string> = {
  too_many_failures: 'too many failures in a row',
}

/** Active, or disabled and why (deleted, or too many failures). */
export function EndpointHealth({ endpoint }: { endpoint: Endpoint }) {
  if (endpoint.is_active) {
    return (
      <StatusBadge color={endpoint.consecutive_failures > 0 ? 'orange' : 'green'}>
        {endpoint.consecutive_failures > 0 ? 'Active, failing' : 'Active'}
      </StatusBadge>
    )
  }
  const reason = endpoint.disabled_reason
    ? (REASONS[endpoint.disabled_reason] ?? endpoint.disabled_reason)
    : 'deleted'
  return <StatusBadge color="gray">Disabled: {reason}</StatusBadge>
}
