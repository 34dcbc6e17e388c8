import { Box } from '@mantine/core'
import type { ReactNode } from 'react'
import { ConfirmModal, useConfirmRow } from '../../../components/confirm-modal.tsx'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { SecretReveal } from '../../../components/secret-reveal.tsx'

/** What issuing a reset link answers (the dashboard's and the console's routes alike). */
interface Issued {
  password_reset: { email: string; replaced: boolean }
  url: string
}

/**
 * Issuing a password reset link for a row (a member, an operator): `ask(row)`
 * asks first, saying what happens and who is told; once confirmed, `shown`
 * holds the link to pass on (shown once) or why none was made.
 */
export function usePasswordResetAction<T extends { id: string; email: string }>(issue: {
  isPending: boolean
  mutate: (id: string, options: { onSettled: () => void }) => void
  data?: Issued | undefined
  error: unknown
}) {
  const confirm = useConfirmRow<T>(issue)
  const email = confirm.row?.email
  const modal: ReactNode = (
    <ConfirmModal
      {...confirm.modal}
      title="Reset password"
      confirmLabel="Issue reset link"
      confirmColor="blue.8"
    >
      Issue a password reset link for {email}? When it is used, the password of {email} changes and every
      session of the account ends: they are signed out everywhere. The link works once, within an hour, and
      replaces any unused earlier one. The service sends no email: you pass the link on. Issuing and using it
      are recorded in the audit log.
    </ConfirmModal>
  )
  const shown: ReactNode = (
    <>
      <ErrorAlert error={issue.error} title="No reset link was issued" />
      {issue.data && (
        <Box mt="sm">
          <SecretReveal
            title={`Password reset link for ${issue.data.password_reset.email}`}
            label="Password reset link"
            value={issue.data.url}
            note={`Pass it on to ${issue.data.password_reset.email} yourself: it works once, for an hour, and is shown only now.${issue.data.password_reset.replaced ? ' The unused link issued before no longer works.' : ''}`}
          />
        </Box>
      )}
    </>
  )
  return { ask: confirm.ask, modal, shown }
}
