import { ErrorAlert } from '../../../../components/error-alert.tsx'
import { Figure } from '../../../../components/order-totals.tsx'
import { BOARD_COUNT_CAP } from '../../lib/due-words.ts'
import { useDueCounts } from '../api/calendar.ts'

/**
 * Open production orders (pending or in production) late and due today, in
 * the production calendar, of one organization or all; each links to the
 * board with that filter.
 */
export function DueFigures({ organizationId }: { organizationId?: string }) {
  const due = useDueCounts(organizationId)
  if (due.error)
    return <ErrorAlert error={due.error} title="The late and due-today counts could not be read" />
  if (!due.data) return null
  const { late, today, more } = due.data
  const board = (filter: 'late' | 'today') => {
    const query = new URLSearchParams({ due: filter })
    if (organizationId) query.set('organization_id', organizationId)
    return `/operator/production?${query}`
  }
  return (
    <>
      <Figure
        label="Production orders late"
        value={late}
        more={more && late >= BOARD_COUNT_CAP}
        to={board('late')}
      />
      <Figure
        label="Production orders due today"
        value={today}
        more={more && today >= BOARD_COUNT_CAP}
        to={board('today')}
      />
    </>
  )
}
