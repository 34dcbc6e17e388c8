import { ActionIcon, CopyButton, Group, Loader, Table, Text, Tooltip } from '@mantine/core'
import type { CSSProperties, ReactNode } from 'react'
import type { AuditEntry } from '../lib/api.ts'
import { ErrorAlert } from './error-alert.tsx'
import { NextPageButton, type Pages } from './next-page-button.tsx'
import { Time } from './time.tsx'

export type AuditColumn<E> = { header: string; cell: (entry: E) => ReactNode; style?: CSSProperties }

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** A long id as its first characters, and a button that copies the whole of it. */
export function ShortId({ id, what = 'id' }: { id: string; what?: string }) {
  return (
    <Group gap={4} wrap="nowrap">
      <Text component="span" size="sm" ff="monospace" title={id}>
        {id.slice(0, 8)}…
      </Text>
      <CopyButton value={id}>
        {({ copied, copy }) => (
          <Tooltip label={copied ? 'Copied' : `Copy ${what}`} withArrow>
            <ActionIcon variant="subtle" size="sm" onClick={copy} aria-label={`Copy ${what} ${id}`}>
              {copied ? (
                <svg
                  aria-hidden="true"
                  width="14"
                  height="14"
                  viewBox="0 0 24 24"
                  fill="none"
                  stroke="currentColor"
                  strokeWidth="2"
                >
                  <path d="M5 12l5 5L20 7" />
                </svg>
              ) : (
                <svg
                  aria-hidden="true"
                  width="14"
                  height="14"
                  viewBox="0 0 24 24"
                  fill="none"
                  stroke="currentColor"
                  strokeWidth="2"
                >
                  <rect x="9" y="9" width="11" height="11" rx="2" />
                  <path d="M5 15V5a2 2 0 0 1 2-2h10" />
                </svg>
              )}
            </ActionIcon>
          </Tooltip>
        )}
      </CopyButton>
    </Group>
  )
}

/** What an entry is about: an id shortened (with copy), anything else (an email, a URL, a SKU) as it is. */
export function Subject({ subject }: { subject: string }) {
  return UUID.test(subject) ? (
    <ShortId id={subject} />
  ) : (
    <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
      {subject}
    </Text>
  )
}

/** The columns both audit logs show; each page lists its own order and adds its own. */
export const AUDIT_COLUMNS = {
  when: {
    header: 'When',
    cell: (e: AuditEntry) => <Time value={e.created_at} exact />,
    style: { whiteSpace: 'nowrap' },
  },
  who: { header: 'Who', cell: (e: AuditEntry) => e.actor, style: { overflowWrap: 'anywhere' } },
  what: {
    header: 'What happened',
    cell: (e: AuditEntry) => (
      <Text size="sm" title={e.action} style={{ overflowWrap: 'anywhere' }}>
        {e.summary}
      </Text>
    ),
    style: { minWidth: 280 },
  },
  subject: { header: 'Subject', cell: (e: AuditEntry) => <Subject subject={e.subject} /> },
} satisfies Record<string, AuditColumn<AuditEntry>>

/** An audit log read page by page (newest first): its error, the entries in `columns`, and older pages on demand. */
export function AuditLogTable<E extends AuditEntry>({
  log,
  columns,
  minWidth,
  caption,
}: {
  log: Pages & { data?: { pages: { data: E[] }[] }; error: unknown; isPending: boolean }
  columns: AuditColumn<E>[]
  minWidth: number
  caption?: string
}) {
  const entries = log.data?.pages.flatMap((p) => p.data) ?? []
  return (
    <>
      <ErrorAlert error={log.error} />
      {log.isPending ? (
        <Loader aria-label="Loading the audit log" />
      ) : (
        // A region keyboard users can scroll when the window is narrower than the table.
        <Table.ScrollContainer
          minWidth={minWidth}
          scrollAreaProps={{
            viewportProps: { tabIndex: 0, role: 'region', 'aria-label': caption ?? 'Audit log entries' },
          }}
        >
          <Table striped verticalSpacing={6} fz="sm">
            {caption && <Table.Caption>{caption}</Table.Caption>}
            <Table.Thead>
              <Table.Tr>
                {columns.map((c) => (
                  <Table.Th key={c.header} scope="col">
                    {c.header}
                  </Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {entries.length === 0 && (
                <Table.Tr>
                  <Table.Td colSpan={columns.length}>
                    <Text size="sm" c="dimmed">
                      No entries match.
                    </Text>
                  </Table.Td>
                </Table.Tr>
              )}
              {entries.map((e) => (
                <Table.Tr key={e.id}>
                  {columns.map((c) => (
                    <Table.Td key={c.header} style={c.style}>
                      {c.cell(e)}
                    </Table.Td>
                  ))}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <NextPageButton pages={log}>Show older entries</NextPageButton>
    </>
  )
}
