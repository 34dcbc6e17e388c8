import { Button, Group, Modal, Stack, Text, Textarea } from '@mantine/core'
import { type FormEvent, useState } from 'react'
import { failConfirmation } from '../components/production-buttons.tsx'

/** The service's limit on a failure's reason. */
const REASON_MAX = 500

/**
 * Failing an order at a station asks first, as the board does, and for the
 * reason (kept in the audit log and on the order's timeline).
 */
export function FailDialog({
  order,
  busy,
  onFail,
  onClose,
}: {
  order: { external_order_id: string; source: string }
  busy: boolean
  onFail: (reason: string | undefined) => void
  onClose: () => void
}) {
  const [reason, setReason] = useState('')
  const words = failConfirmation({ order } as Parameters<typeof failConfirmation>[0])
  const submit = (e: FormEvent) => {
    e.preventDefault()
    onFail(reason.trim() === '' ? undefined : reason.trim())
  }
  return (
    <Modal opened onClose={onClose} title={words.title} closeButtonProps={{ 'aria-label': 'Close' }}>
      <form onSubmit={submit} noValidate>
        <Stack gap="md">
          <Text size="sm">{words.text}</Text>
          <Textarea
            label="Reason"
            description="For the audit log and the order's timeline, e.g. “Ink smear on the print”"
            maxLength={REASON_MAX}
            autosize
            minRows={2}
            value={reason}
            onChange={(e) => setReason(e.currentTarget.value)}
            data-autofocus
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {words.cancelLabel}
            </Button>
            <Button type="submit" color="red.9" loading={busy}>
              {words.confirmLabel}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  )
}
