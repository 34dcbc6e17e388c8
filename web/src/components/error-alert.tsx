import { Alert } from '@mantine/core'

/** A failed request's message, announced to screen readers. */
export function ErrorAlert({ error, title = 'Something went wrong' }: { error: unknown; title?: string }) {
  if (!error) return null
  const message = error instanceof Error ? error.message : String(error)
  return (
    <Alert color="red" title={title} role="alert" variant="default">
      {message}
    </Alert>
  )
}
