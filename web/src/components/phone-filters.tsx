import { Button, Collapse, Stack } from '@mantine/core'
import { type ReactNode, useId, useState } from 'react'
import { useStacked } from './data-table.tsx'

/**
 * A list's filters: as they are on a wide screen; on a phone folded behind a
 * Filters button saying how many are set ("Filters (2)"), so the list's rows
 * come first. Every list with more than three filters uses it (see
 * docs/dashboard.md, "Phones").
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
        {active > 0 ? `Filters (${active})` : 'Filters'}
      </Button>
      <Collapse expanded={open} id={id} w="100%">
        <Stack gap="sm">{children}</Stack>
      </Collapse>
    </>
  )
}
