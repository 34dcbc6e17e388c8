import { Badge } from '@mantine/core'
import type { ReactNode } from 'react'

/**
 * A state as a badge with dark text on white (colored badge text fails the
 * contrast check); the color is a dot beside the words, which carry the meaning.
 */
export function StatusBadge({
  color,
  children,
  inline = false,
}: {
  color: string
  children: ReactNode
  /** A span, for inside a line of text (a summary's fact). */
  inline?: boolean
}) {
  return (
    <Badge
      component={inline ? 'span' : 'div'}
      variant="default"
      // Never cut to an ellipsis in a narrow table column.
      styles={{ label: { overflow: 'visible' } }}
      leftSection={
        <span
          aria-hidden="true"
          style={{
            display: 'inline-block',
            width: 8,
            height: 8,
            borderRadius: 4,
            background: `var(--mantine-color-${color}-6)`,
          }}
        />
      }
    >
      {children}
    </Badge>
  )
}
