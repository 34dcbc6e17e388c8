import { Badge } from '@mantine/core'
import type { Endpoint } from '../../../lib/api.ts'

const REASONS: Record<string, string> = {
  too_many_failures: 'too many failures in a row',
}

/** Active, or disabled and why (deleted, or too many failures). */
export function EndpointHealth({ endpoint }: { endpoint: Endpoint }) {
  if (endpoint.is_active) {
    return (
      <Badge color={endpoint.consecutive_failures > 0 ? 'orange' : 'green'} variant="light">
        {endpoint.consecutive_failures > 0 ? 'Active, failing' : 'Active'}
      </Badge>
    )
  }
  const reason = endpoint.disabled_reason
    ? (REASONS[endpoint.disabled_reason] ?? endpoint.disabled_reason)
    : 'deleted'
  return (
    <Badge color="gray" variant="outline">
      Disabled: {reason}
    </Badge>
  )
}
