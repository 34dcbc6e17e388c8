import { Paper, Table, type TableProps, Text, VisuallyHidden } from '@mantine/core'
import { useMediaQuery } from '@mantine/hooks'
import { createContext, type ReactNode, useContext } from 'react'

/**
 * Below Mantine's `sm` breakpoint (48em, where the menu folds into the
 * burger) a table becomes a list of cards, one per row, each cell a labelled
 * value: the same information, nothing to scroll sideways.
 */
export const PHONE_QUERY = '(max-width: 47.99em)'

const Stacked = createContext(false)

/** True on a phone-sized screen: tables are stacked there. */
export function useStacked(): boolean {
  return useMediaQuery(PHONE_QUERY, false, { getInitialValueInEffect: false })
}

interface DataTableProps extends Omit<TableProps, 'children' | 'title'> {
  /** The table's accessible name (a caption when `caption` is set, else its label); the list's on a phone. */
  label: string
  /** Show `label` as the table's caption. */
  caption?: boolean
  /** The column headers, in order, each unique; `hidden` for one only screen readers need (actions). */
  columns: readonly (string | { label: string; hidden?: boolean; width?: number | string })[]
  /** The rows: DataRow elements. */
  children: ReactNode
  /** What follows the rows in the table (a totals row): Table.Tfoot on a wide screen, shown after the cards on a phone. */
  foot?: ReactNode
}

/**
 * A table on a wide screen; on a phone a list of cards (`<ul>` named like the
 * table, an `<li>` and a `<dl>` per row). Rows are DataRow, cells DataCell
 * with the column's label, so both forms carry the same values.
 */
export function DataTable({ label, caption, columns, children, foot, ...props }: DataTableProps) {
  const stacked = useStacked()
  if (stacked) {
    return (
      <Stacked.Provider value>
        <ul aria-label={label} style={{ listStyle: 'none', padding: 0, margin: 0, display: 'grid', gap: 8 }}>
          {children}
        </ul>
        {foot}
      </Stacked.Provider>
    )
  }
  return (
    <Stacked.Provider value={false}>
      <Table striped aria-label={caption ? undefined : label} {...props}>
        {caption && <Table.Caption>{label}</Table.Caption>}
        <Table.Thead>
          <Table.Tr>
            {columns.map((c) => {
              const column = typeof c === 'string' ? { label: c } : c
              return (
                <Table.Th key={column.label} scope="col" w={column.width}>
                  {column.hidden ? <VisuallyHidden>{column.label}</VisuallyHidden> : column.label}
                </Table.Th>
              )
            })}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>{children}</Table.Tbody>
        {foot}
      </Table>
    </Stacked.Provider>
  )
}

/** A row: a table row, or a card on a phone. */
export function DataRow({ children, ...props }: { children: ReactNode; 'aria-label'?: string; bg?: string }) {
  const stacked = useContext(Stacked)
  if (!stacked) return <Table.Tr {...props}>{children}</Table.Tr>
  return (
    <Paper component="li" withBorder p="sm" radius="md" aria-label={props['aria-label']} bg={props.bg}>
      <dl style={{ margin: 0, display: 'grid', gap: 6 }}>{children}</dl>
    </Paper>
  )
}

/** True when a cell has nothing to show: on a phone its label is left out too. */
function empty(children: ReactNode): boolean {
  return children === null || children === undefined || children === false || children === ''
}

/**
 * A cell: a table cell, or on a phone a labelled value of the row's card.
 * `title` makes it the card's heading line (the label then only for screen
 * readers); `hideLabel` for a cell whose content names itself (buttons).
 */
export function DataCell({
  label,
  title,
  hideLabel,
  children,
  colSpan,
}: {
  label: string
  title?: boolean
  hideLabel?: boolean
  children?: ReactNode
  colSpan?: number
}) {
  const stacked = useContext(Stacked)
  if (!stacked) return <Table.Td colSpan={colSpan}>{children}</Table.Td>
  if (empty(children)) return null
  const quiet = title || hideLabel
  return (
    <div style={{ display: 'grid', gridTemplateColumns: quiet ? '1fr' : 'minmax(6rem, 35%) 1fr', gap: 8 }}>
      {quiet ? (
        <VisuallyHidden component="dt">{label}</VisuallyHidden>
      ) : (
        <Text component="dt" size="sm" c="dimmed">
          {label}
        </Text>
      )}
      <Text
        component="dd"
        m={0}
        size={title ? 'md' : 'sm'}
        fw={title ? 600 : undefined}
        style={{ overflowWrap: 'anywhere', minWidth: 0 }}
      >
        {children}
      </Text>
    </div>
  )
}
