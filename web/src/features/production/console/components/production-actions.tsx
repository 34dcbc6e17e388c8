import { Alert, Code, List, Text } from '@mantine/core'
import { type ReactNode, useState } from 'react'
import { ConfirmModal } from '../../../../components/confirm-modal.tsx'
import { ErrorAlert } from '../../../../components/error-alert.tsx'
import { Time } from '../../../../components/time.tsx'
import { ApiError } from '../../../../lib/api.ts'
import { type ProducedEvents, type ProductionAction, useProductionAction } from '../api/production.ts'

/**
 * Acting on production orders, wherever their buttons are (the board's rows,
 * the production order page): the irreversible actions ask first, and what
 * the last one recorded shows until the next.
 */
export interface Outcome {
  label: string
  events: ProducedEvents
}

/** What an action that cannot be undone asks before it is done. */
export interface Confirmation {
  title: string
  text: string
  confirmLabel: string
  cancelLabel?: string
}

/** Asks first (with `confirm`) or acts at once. */
export type Act = (action: ProductionAction, label: string, confirm?: Confirmation) => void

/** What the last action did: the events it recorded, or that it recorded none. */
export function LastAction({ outcome }: { outcome: Outcome | null }) {
  if (!outcome) return null
  return (
    <Alert variant="default" color="green" role="status" title={outcome.label}>
      {outcome.events.length === 0 ? (
        <Text size="sm">
          Recorded no event (partner flags never do; nor do shop orders, partner-produced items, or a status
          the order already had).
        </Text>
      ) : (
        <>
          <Text size="sm">
            Recorded {outcome.events.length === 1 ? 'this event' : 'these events'}, sent to the organization's
            live webhooks:
          </Text>
          <List size="sm">
            {outcome.events.map((e) => (
              <List.Item key={e.id}>
                <Code>{e.type}</Code> at <Time value={e.created_at} exact /> (event {e.id})
              </List.Item>
            ))}
          </List>
        </>
      )}
    </Alert>
  )
}

/**
 * `act` for the action buttons, `busy` while one runs; `outcome` (the last
 * action's events, or its refusal) and `confirmation` (the question an
 * irreversible action asks) go on the page. The board and the production
 * order page refresh after each action (useProductionAction). At a station,
 * `stationId` names it in each action's audit entry, and `onDone` and
 * `onRefused` hear what each action recorded or why it was refused (the
 * station says so in its own words).
 */
export function useProductionActions(
  options: {
    stationId?: string
    onDone?: (outcome: Outcome) => void
    onRefused?: (error: unknown, label: string) => void
  } = {},
): {
  act: Act
  busy: boolean
  outcome: ReactNode
  confirmation: ReactNode
} {
  const action = useProductionAction(options.stationId)
  const [outcome, setOutcome] = useState<Outcome | null>(null)
  const [asking, setAsking] = useState<{
    action: ProductionAction
    label: string
    confirm: Confirmation
    open: boolean
  } | null>(null)

  function perform(next: ProductionAction, label: string) {
    setOutcome(null)
    action.mutate(next, {
      onSuccess: (events) => {
        setOutcome({ label, events })
        options.onDone?.({ label, events })
      },
      onError: (error) => options.onRefused?.(error, label),
      onSettled: () => setAsking((a) => a && { ...a, open: false }),
    })
  }
  const act: Act = (next, label, confirm) => {
    if (confirm) {
      action.reset()
      setAsking({ action: next, label, confirm, open: true })
    } else perform(next, label)
  }

  return {
    act,
    busy: action.isPending,
    outcome: (
      <>
        <LastAction outcome={outcome} />
        <ErrorAlert
          error={action.error}
          title={
            action.error instanceof ApiError && action.error.code === 'production_conflict'
              ? 'Changed meanwhile: reload and decide again'
              : undefined
          }
        />
      </>
    ),
    confirmation: (
      <ConfirmModal
        opened={asking?.open ?? false}
        title={asking?.confirm.title ?? ''}
        onCancel={() => setAsking((a) => a && { ...a, open: false })}
        cancelLabel={asking?.confirm.cancelLabel}
        confirmLabel={asking?.confirm.confirmLabel ?? ''}
        busy={action.isPending}
        onConfirm={() => asking && perform(asking.action, asking.label)}
      >
        {asking?.confirm.text}
      </ConfirmModal>
    ),
  }
}
