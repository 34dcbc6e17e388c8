import { StatusBadge } from '../../../components/status-badge.tsx'

const STATUS_COLOR: Record<string, string> = { succeeded: 'green', failed: 'red', pending: 'yellow' }

/** A webhook delivery's status (pending, succeeded, failed) as a badge. */
export function DeliveryStatus({ status }: { status: string }) {
  return <StatusBadge color={STATUS_COLOR[status] ?? 'gray'}>{status}</StatusBadge>
}
