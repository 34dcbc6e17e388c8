import { Button, Collapse, Stack } from '@mantine/core'
import { type ReactNode, useId, useState } from 'react'
import { useStacked } from './data-table.tsx'

/**
 * A list's secondary filters: as they are on a wide screen; on a phone folded
 * behind a Filters button (saying how many are set), so the list comes first.
 */
export function PhoneFilters({ active, children }: { active: number; children: ReactNode }) {
  const stacked = useStacked()
  const [open, setOpen] = useState(false)
  const id = useId()
  if (!stacked) return children
  return (
    <>
      <Button
        variant="default"
        fullWidth
        aria-expanded={open}
        aria-controls={id}
        onClick={() => setOpen((o) => !o)}
      >
        {active > 0 ? `Filters (${active} set)` : 'Filters'}
      </Button>
      <Collapse expanded={open} id={id} w="100%">
        <Stack gap="sm">{children}</Stack>
      </Collapse>
    </>
  )
}
