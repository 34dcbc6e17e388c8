/** Human output of the admin CLI: aligned tables, relative times, key-value blocks. */

/** "3 min ago", "in 7 days", "just now"; an absent time is "-". */
export function relativeTime(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '-'
  const at = Date.parse(iso)
  if (Number.isNaN(at)) return iso
  const seconds = Math.round((now - at) / 1000)
  const abs = Math.abs(seconds)
  if (abs < 10) return 'just now'
  const [value, unit] =
    abs < 60
      ? [abs, 's']
      : abs < 3600
        ? [Math.floor(abs / 60), 'min']
        : abs < 86_400
          ? [Math.floor(abs / 3600), 'h']
          : abs < 60 * 86_400
            ? [Math.floor(abs / 86_400), Math.floor(abs / 86_400) === 1 ? 'day' : 'days']
            : [0, '']
  if (!unit) return iso.slice(0, 10)
  return seconds >= 0 ? `${value} ${unit} ago` : `in ${value} ${unit}`
}

export type Cell = string | number | boolean | null | undefined
export type Column<T> = [header: string, value: (row: T) => Cell]

const text = (cell: Cell) => (cell === null || cell === undefined || cell === '' ? '-' : String(cell))

/** Columns padded to their widest cell, two spaces apart; an empty list says so. */
export function table<T>(rows: readonly T[], columns: Column<T>[], empty = '(none)'): string {
  if (rows.length === 0) return empty
  const cells = [columns.map(([h]) => h), ...rows.map((r) => columns.map(([, f]) => text(f(r))))]
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => line[i]!.length)))
  return cells
    .map((line) =>
      line
        .map((cell, i) => (i === line.length - 1 ? cell : cell.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
}

/** "Label:  value" lines, the labels padded to the longest. */
export function fields(pairs: [label: string, value: Cell][]): string {
  const width = Math.max(...pairs.map(([l]) => l.length)) + 1
  return pairs.map(([label, value]) => `${`${label}:`.padEnd(width)}  ${text(value)}`).join('\n')
}
