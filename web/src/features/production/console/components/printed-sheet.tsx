import { Anchor, Button, Loader } from '@mantine/core'
import type { ReactNode } from 'react'
import { Link, Navigate } from 'react-router'
import { ErrorAlert } from '../../../../components/error-alert.tsx'
import { useAccount } from '../../../auth/api/session.ts'

/** Whether the signed-in account is an operator, for a sheet's query to wait on. */
export function useOperatorAccount() {
  const account = useAccount()
  return { account, isOperator: !!account.data?.operator }
}

/**
 * A printed sheet's page (the job sheet, the batch sheet), outside the shell
 * so that only the sheet prints: operators only (others go to sign in or
 * home), a toolbar with Print and the way back, then the sheet once loaded.
 */
export function PrintedSheet<T>({
  account,
  query,
  what,
  back,
  children,
}: {
  account: ReturnType<typeof useOperatorAccount>['account']
  query: { isPending: boolean; data: T | undefined; error: unknown }
  /** "job sheet", "batch sheet". */
  what: string
  back: { to: string; label: string }
  children: (data: T) => ReactNode
}) {
  if (account.isPending) return <Loader aria-label="Loading" m="xl" />
  if (!account.data) return <Navigate to="/sign-in" replace />
  if (!account.data.operator) return <Navigate to="/home" replace />
  return (
    <main>
      <div className="job-sheet-toolbar">
        <Button onClick={() => window.print()} disabled={!query.data}>
          Print
        </Button>
        <Anchor component={Link} to={back.to} size="sm">
          {back.label}
        </Anchor>
      </div>
      {query.isPending ? (
        <Loader aria-label={`Loading the ${what}`} m="xl" />
      ) : query.data ? (
        children(query.data)
      ) : (
        <div className="job-sheet">
          <ErrorAlert error={query.error} title={`The ${what} cannot be shown`} />
        </div>
      )}
    </main>
  )
}
