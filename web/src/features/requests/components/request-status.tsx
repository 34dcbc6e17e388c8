import { StatusBadge } from '../../../components/status-badge.tsx'

/** The dot's color by class: success, redirect, the caller's mistake, the service's failure. */
const CLASS_COLOR: Record<string, string> = { '2': 'green', '3': 'blue', '4': 'orange', '5': 'red' }

/** An answer's HTTP status as a badge colored by its class (2xx ... 5xx). */
export function RequestStatus({ status }: { status: number }) {
  return <StatusBadge color={CLASS_COLOR[String(status)[0]!] ?? 'gray'}>{status}</StatusBadge>
}

/** A duration as measured, under 10 ms with a decimal. */
export const formatDuration = (ms: number) => `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms`
