import { Button, Group, Modal, Text } from '@mantine/core'
import type { ReactNode } from 'react'

/** Asks before something that cannot be undone; `children` says what follows. */
export function ConfirmModal({
  opened,
  title,
  onCancel,
  cancelLabel = 'Cancel',
  confirmLabel,
  confirmColor = 'red.9',
  busy,
  onConfirm,
  children,
}: {
  opened: boolean
  title: string
  onCancel: () => void
  cancelLabel?: string
  confirmLabel: string
  confirmColor?: string
  busy: boolean
  onConfirm: () => void
  children: ReactNode
}) {
  return (
    <Modal closeButtonProps={{ 'aria-label': 'Close' }} opened={opened} onClose={onCancel} title={title}>
      <Text mb="md">{children}</Text>
      <Group justify="flex-end">
        <Button variant="default" onClick={onCancel}>
          {cancelLabel}
        </Button>
        <Button color={confirmColor} loading={busy} onClick={onConfirm}>
          {confirmLabel}
        </Button>
      </Group>
    </Modal>
  )
}
