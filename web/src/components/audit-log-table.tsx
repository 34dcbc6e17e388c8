import { Loader, Table, Text } from '@mantine/core'
import type { CSSProperties, ReactNode } from 'react'
import type { AuditEntry } from '../lib/api.ts'
import { ErrorAlert } from './error-alert.tsx'
import { NextPageButton, type Pages } from './next-page-button.tsx'
import { Time } from './time.tsx'

export type AuditColumn<E> = { header: string; cell: (entry: E) => ReactNode; style?: CSSProperties }

const describe = (details: Record<string, unknown>) =>
  Object.entries(details)
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(', ')

/** The columns both audit logs show; each page lists its own order and adds its own. */
export const AUDIT_COLUMNS = {
  when: { header: 'When', cell: (e: AuditEntry) => <Time value={e.created_at} exact /> },
  who: { header: 'Who', cell: (e: AuditEntry) => e.actor },
  subject: { header: 'Subject', cell: (e: AuditEntry) => e.subject },
  details: { header: 'Details', cell: (e: AuditEntry) => <Text size="sm">{describe(e.details)}</Text> },
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
        // A region keyboard users can scroll: long entries make the table wider than the page.
        <Table.ScrollContainer
          minWidth={minWidth}
          scrollAreaProps={{
            viewportProps: { tabIndex: 0, role: 'region', 'aria-label': caption ?? 'Audit log entries' },
          }}
        >
          <Table striped>
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
