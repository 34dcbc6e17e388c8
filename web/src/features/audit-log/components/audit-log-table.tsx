import { ActionIcon, CopyButton, Group, Loader, Text, Tooltip } from '@mantine/core'
import type { CSSProperties, ReactNode } from 'react'
import { DataCell, DataRow, DataTable } from '../../../components/data-table.tsx'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { NextPageButton, type Pages } from '../../../components/next-page-button.tsx'
import { Time } from '../../../components/time.tsx'
import type { AuditEntry } from '../../../lib/api.ts'

/** A column: its header, what its cell shows, and the style of that cell in the table (not on a phone). */
export type AuditColumn<E> = { header: string; cell: (entry: E) => ReactNode; style?: CSSProperties }

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** A small stroked icon of the copy button (a tick once copied); hidden from assistive technology. */
function Icon({ children }: { children: ReactNode }) {
  return (
    <svg
      aria-hidden="true"
      width="14"
      height="14"
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
    >
      {children}
    </svg>
  )
}

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
                <Icon>
                  <path d="M5 12l5 5L20 7" />
                </Icon>
              ) : (
                <Icon>
                  <rect x="9" y="9" width="11" height="11" rx="2" />
                  <path d="M5 15V5a2 2 0 0 1 2-2h10" />
                </Icon>
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

/**
 * An audit log read page by page (newest first): its error, the entries in
 * `columns` (on a phone a card per entry, its first column the card's
 * heading), and older pages on demand.
 */
export function AuditLogTable<E extends AuditEntry>({
  log,
  columns,
  caption,
}: {
  log: Pages & { data?: { pages: { data: E[] }[] }; error: unknown; isPending: boolean }
  columns: AuditColumn<E>[]
  caption?: string
}) {
  const entries = log.data?.pages.flatMap((p) => p.data) ?? []
  return (
    <>
      <ErrorAlert error={log.error} />
      {log.isPending ? (
        <Loader aria-label="Loading the audit log" />
      ) : (
        <DataTable
          label={caption ?? 'Audit log entries'}
          caption={caption !== undefined}
          columns={columns.map((c) => c.header)}
          verticalSpacing={6}
          fz="sm"
        >
          {entries.length === 0 && (
            <DataRow>
              <DataCell label={columns[0]?.header ?? 'Entries'} hideLabel colSpan={columns.length}>
                <Text size="sm" c="dimmed" component="span">
                  No entries match.
                </Text>
              </DataCell>
            </DataRow>
          )}
          {entries.map((e) => (
            <DataRow key={e.id}>
              {columns.map((c, n) => (
                <DataCell key={c.header} label={c.header} title={n === 0} style={c.style}>
                  {c.cell(e)}
                </DataCell>
              ))}
            </DataRow>
          ))}
        </DataTable>
      )}
      <NextPageButton pages={log}>Show older entries</NextPageButton>
    </>
  )
}
