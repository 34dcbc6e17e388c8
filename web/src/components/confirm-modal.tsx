import { Button, Code, Group, Modal, Stack, Text, TextInput } from '@mantine/core'
import { type FormEvent, type ReactNode, useEffect, useState } from 'react'

/**
 * Asks before something that cannot be undone; `children` says what follows
 * and who is told. Focus starts on the button that keeps things as they are
 * (or on the field of a typed confirmation) and returns to the opener on close.
 * With `typed`, the action waits until that exact text is typed (a deletion
 * that loses a whole endpoint).
 */
export function ConfirmModal({
  opened,
  title,
  onCancel,
  cancelLabel = 'Cancel',
  confirmLabel,
  confirmColor = 'red.9',
  busy,
  onConfirm,
  typed,
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
  typed?: { label: string; value: string }
  children: ReactNode
}) {
  const [text, setText] = useState('')
  useEffect(() => {
    if (opened) setText('')
  }, [opened])
  const ready = !typed || text.trim() === typed.value
  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (ready) onConfirm()
  }
  return (
    <Modal closeButtonProps={{ 'aria-label': 'Close' }} opened={opened} onClose={onCancel} title={title}>
      <form onSubmit={submit}>
        <Stack gap="md">
          <Text>{children}</Text>
          {typed && (
            <>
              <Code block style={{ wordBreak: 'break-all' }}>
                {typed.value}
              </Code>
              <TextInput
                label={typed.label}
                value={text}
                onChange={(e) => setText(e.currentTarget.value)}
                autoComplete="off"
                data-autofocus
              />
            </>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onCancel} data-autofocus={typed ? undefined : true}>
              {cancelLabel}
            </Button>
            <Button type="submit" color={confirmColor} loading={busy} disabled={!ready}>
              {confirmLabel}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  )
}

/**
 * A row's action asked about first (revoking a key, removing a member):
 * `ask(row)` opens the ConfirmModal that `modal` is spread on; confirming runs
 * `action` on the row's id, and the modal closes once that has settled.
 */
export function useConfirmRow<T extends { id: string }>(action: {
  isPending: boolean
  mutate: (id: string, options: { onSettled: () => void }) => void
}) {
  const [row, setRow] = useState<T | null>(null)
  return {
    row,
    ask: setRow,
    modal: {
      opened: row !== null,
      onCancel: () => setRow(null),
      busy: action.isPending,
      onConfirm: () => row && action.mutate(row.id, { onSettled: () => setRow(null) }),
    },
  }
}
