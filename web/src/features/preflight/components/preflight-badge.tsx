import { Badge, List, Stack, Text } from '@mantine/core'
import type { PreflightFile, PreflightStatus } from '../api.ts'

export const PREFLIGHT_WORDS: Record<PreflightStatus, { label: string; color: string }> = {
  ok: { label: 'Print check: ok', color: 'green.9' },
  warning: { label: 'Print check: warning', color: 'orange.9' },
  problem: { label: 'Print check: problem', color: 'red.8' },
  unmeasurable: { label: 'Print check: could not be measured', color: 'red.8' },
  pending: { label: 'Print check: measuring', color: 'gray.7' },
  not_checked: { label: 'Print check: not checked', color: 'gray.7' },
}

/** A file's or an item's preflight in a badge. */
export function PreflightBadge({ status }: { status: PreflightStatus }) {
  const words = PREFLIGHT_WORDS[status]
  return (
    <Badge
      color={words.color}
      variant={status === 'problem' || status === 'unmeasurable' ? 'filled' : 'outline'}
      // A long label wraps in a narrow file card instead of being cut off.
      h="auto"
      styles={{ label: { whiteSpace: 'normal', overflow: 'visible' } }}
    >
      {words.label}
    </Badge>
  )
}

/** What was checked of a file and what to do: its reason or its checks' sentences, and its measured facts. */
export function PreflightDetails({ file }: { file: PreflightFile }) {
  const flagged = file.checks.filter((c) => c.verdict !== 'ok')
  return (
    <Stack gap={2}>
      <PreflightBadge status={file.status} />
      {file.reason && <Text size="xs">{file.reason}</Text>}
      {file.spec && (
        <Text size="xs" c="dimmed">
          Product asks: {file.spec}
        </Text>
      )}
      {flagged.length > 0 && (
        <List size="xs" spacing={2}>
          {flagged.map((c) => (
            <List.Item key={c.check}>
              <strong>{c.verdict === 'problem' ? 'Problem' : 'Warning'}:</strong> {c.sentence}
            </List.Item>
          ))}
        </List>
      )}
      {file.facts.length > 0 && (
        <Text size="xs" c="dimmed">
          Measured: {file.facts.join(' · ')}
        </Text>
      )}
    </Stack>
  )
}
