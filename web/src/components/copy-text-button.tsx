import { Button, type ButtonProps, CopyButton } from '@mantine/core'
import type { ReactNode } from 'react'

/** A button that copies `value` to the clipboard: `children` names what it copies, "Copied" once it has. */
export function CopyTextButton({
  value,
  variant = 'default',
  children,
}: {
  value: string
  variant?: ButtonProps['variant']
  children: ReactNode
}) {
  return (
    <CopyButton value={value}>
      {({ copied, copy }) => (
        <Button variant={variant} onClick={copy}>
          {copied ? 'Copied' : children}
        </Button>
      )}
    </CopyButton>
  )
}
