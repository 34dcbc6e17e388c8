import { Select, Text, TextInput } from '@mantine/core'
import { StatusBadge } from '../../../../components/status-badge.tsx'
import { DUE_COLOR, type Due, dueWords, formatDay, isOpen } from '../../lib/due-words.ts'
import type { BoardFilters } from '../api/production.ts'

/**
 * When a production order is due: the date, then late, today or the working
 * days left, in words; for one no longer open (completed, failed,
 * cancelled), the date alone.
 */
export function DueDate({ due, status }: { due: Due | null; status: string }) {
  if (!due) {
    return (
      <Text size="sm" c="dimmed" component="span">
        {dueWords(null)}
      </Text>
    )
  }
  return (
    <>
      <Text size="sm" component="span" display="block">
        <time dateTime={due.on}>{formatDay(due.on)}</time>
      </Text>
      {!isOpen(status) ? null : due.state === 'upcoming' ? (
        <Text size="xs" component="span" display="block">
          {dueWords(due)}
        </Text>
      ) : (
        <StatusBadge color={DUE_COLOR[due.state]} inline>
          {dueWords(due)}
        </StatusBadge>
      )}
    </>
  )
}

const DUE = [
  { value: '', label: 'Any due date' },
  { value: 'late', label: 'Late' },
  { value: 'today', label: 'Due today' },
]

/**
 * The board's due filters: late or due today, or due on or before a day.
 * The service reads one of them, so setting one clears the other.
 */
export function DueFilters({
  filters,
  onChange,
  w,
}: {
  filters: Pick<BoardFilters, 'due' | 'due_by'>
  onChange: (next: Pick<BoardFilters, 'due' | 'due_by'>) => void
  w: { base: string; sm: string }
}) {
  return (
    <>
      <Select
        label="Due"
        w={w}
        data={DUE}
        value={filters.due}
        onChange={(v) => onChange({ due: (v ?? '') as BoardFilters['due'], due_by: '' })}
        allowDeselect={false}
      />
      <TextInput
        type="date"
        label="Due on or before"
        w={w}
        value={filters.due_by}
        onChange={(e) => onChange({ due: '', due_by: e.currentTarget.value })}
      />
    </>
  )
}
