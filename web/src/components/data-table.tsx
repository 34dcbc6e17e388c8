import { Paper, Table, type TableProps, Text, VisuallyHidden } from '@mantine/core'
import { useMediaQuery } from '@mantine/hooks'
import {
  Children,
  type CSSProperties,
  createContext,
  isValidElement,
  type ReactNode,
  useContext,
  useId,
} from 'react'

/**
 * Below Mantine's `sm` breakpoint (48em, where the menu folds into the
 * burger) a table becomes a list of cards, one per row, each cell a labelled
 * value: the same information, nothing to scroll sideways.
 */
export const PHONE_QUERY = '(max-width: 47.99em)'

const Stacked = createContext(false)
/** How many labelled values a card shows side by side. */
const CardColumns = createContext(1)

/** True on a phone-sized screen: tables are stacked there. */
export function useStacked(): boolean {
  return useMediaQuery(PHONE_QUERY, false, { getInitialValueInEffect: false })
}

/** A column header; `hidden` for one only screen readers need (actions). */
export type Column = string | { label: string; hidden?: boolean; width?: number | string }

interface DataTableProps extends Omit<TableProps, 'children' | 'title'> {
  /** The table's accessible name (a caption when `caption` is set, else its label); the list's on a phone. */
  label: string
  /** Show `label` as the table's caption (on a phone, above the cards). */
  caption?: boolean
  /** The column headers, in order, each unique. */
  columns: readonly Column[]
  /** The rows: DataRow elements. */
  children: ReactNode
  /** What follows the rows in the table (a totals row): Table.Tfoot on a wide screen, shown after the cards on a phone. */
  foot?: ReactNode
  /** On a phone, how many short labelled values (numbers) a card shows side by side; 1 by default. */
  cardColumns?: number
}

/**
 * A table on a wide screen; on a phone a list of cards (`<ul>` named like the
 * table, an `<li>` and a `<dl>` per row). Rows are DataRow, cells DataCell
 * with the column's label, so both forms carry the same values.
 */
export function DataTable({
  label,
  caption,
  columns,
  children,
  foot,
  cardColumns = 1,
  ...props
}: DataTableProps) {
  const stacked = useStacked()
  const captionId = useId()
  if (stacked) {
    return (
      <Stacked.Provider value>
        {caption && (
          <Text id={captionId} size="sm" c="dimmed">
            {label}
          </Text>
        )}
        <ul
          aria-label={caption ? undefined : label}
          aria-labelledby={caption ? captionId : undefined}
          style={{ listStyle: 'none', padding: 0, margin: 0, display: 'grid', gap: 8 }}
        >
          <CardColumns.Provider value={cardColumns}>{children}</CardColumns.Provider>
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

/** True for a DataCell that heads its card (`title` or `rowHeader`). */
function heads(child: ReactNode): boolean {
  if (!isValidElement<{ title?: boolean; rowHeader?: boolean }>(child)) return false
  return Boolean(child.props.title || child.props.rowHeader)
}

/** A row: a table row, or a card on a phone, its heading cell first. */
export function DataRow({ children, ...props }: { children: ReactNode; 'aria-label'?: string; bg?: string }) {
  const stacked = useContext(Stacked)
  const columns = useContext(CardColumns)
  if (!stacked) return <Table.Tr {...props}>{children}</Table.Tr>
  const cells = Children.toArray(children)
  return (
    <Paper component="li" withBorder p="sm" radius="md" aria-label={props['aria-label']} bg={props.bg}>
      <dl
        style={{
          margin: 0,
          display: 'grid',
          gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))`,
          gap: 6,
          columnGap: 16,
        }}
      >
        {cells.filter(heads)}
        {cells.filter((c) => !heads(c))}
      </dl>
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
 * readers); `hideLabel` for a cell whose content names itself (buttons);
 * `rowHeader` a title that is the row's header cell (`th scope=row`) in the
 * table; `labelAbove` puts the label over the value on a phone, for long
 * values (a list, a paragraph); `style` applies to the table cell only.
 */
export function DataCell({
  label,
  title,
  rowHeader,
  hideLabel,
  labelAbove,
  children,
  colSpan,
  style,
}: {
  label: string
  title?: boolean
  rowHeader?: boolean
  hideLabel?: boolean
  labelAbove?: boolean
  children?: ReactNode
  colSpan?: number
  style?: CSSProperties
}) {
  const stacked = useContext(Stacked)
  const sideBySide = useContext(CardColumns) > 1
  if (!stacked) {
    return rowHeader ? (
      <Table.Th scope="row" colSpan={colSpan} style={style}>
        {children}
      </Table.Th>
    ) : (
      <Table.Td colSpan={colSpan} style={style}>
        {children}
      </Table.Td>
    )
  }
  if (empty(children)) return null
  const heading = title || rowHeader
  const quiet = heading || hideLabel
  return (
    <div
      style={{
        display: 'grid',
        gridTemplateColumns: quiet || labelAbove || sideBySide ? '1fr' : 'minmax(6rem, 35%) 1fr',
        gap: labelAbove || sideBySide ? 2 : 8,
        gridColumn: quiet || labelAbove ? '1 / -1' : undefined,
      }}
    >
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
        size={heading ? 'md' : 'sm'}
        fw={heading ? 600 : undefined}
        style={{ overflowWrap: 'anywhere', minWidth: 0 }}
      >
        {children}
      </Text>
    </div>
  )
}
