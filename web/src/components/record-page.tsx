import { Loader } from '@mantine/core'
import type { ReactNode } from 'react'
import { ErrorAlert } from './error-alert.tsx'
import { Page } from './page.tsx'

/**
 * The page of one record (an order, a request): a loader while it loads, why it
 * cannot be shown and the way back when it failed, else what `children` draws.
 * `what` names it for both ("the order": "Loading the order", "The order cannot be shown").
 */
export function RecordPage<T>({
  title,
  what,
  query,
  back,
  children,
}: {
  title: string
  what: string
  query: { isPending: boolean; data: T | undefined; error: unknown }
  back: ReactNode
  children: (record: T) => ReactNode
}) {
  if (query.isPending) {
    return (
      <Page title={title}>
        <Loader aria-label={`Loading ${what}`} />
      </Page>
    )
  }
  if (query.data === undefined) {
    return (
      <Page title={title}>
        <ErrorAlert error={query.error} title={`${what[0]!.toUpperCase()}${what.slice(1)} cannot be shown`} />
        {back}
      </Page>
    )
  }
  return children(query.data)
}
