import { NativeSelect } from '@mantine/core'

/** The current UTC month and the 23 before it, newest first, as YYYY-MM. */
export function recentMonths(now = new Date()): string[] {
  const months: string[] = []
  for (let back = 0; back < 24; back++) {
    const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1))
    months.push(d.toISOString().slice(0, 7))
  }
  return months
}

const label = (month: string) =>
  new Date(`${month}-01T00:00:00Z`).toLocaleDateString('en-GB', {
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  })

/** A calendar month (UTC) to count. */
export function MonthPicker({ value, onChange }: { value: string; onChange: (month: string) => void }) {
  return (
    <NativeSelect
      label="Month (UTC)"
      w={220}
      value={value}
      onChange={(e) => onChange(e.currentTarget.value)}
      data={recentMonths().map((m) => ({ value: m, label: label(m) }))}
    />
  )
}
