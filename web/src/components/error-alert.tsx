import { Alert, Code } from '@mantine/core'

/**
 * A failed request's message, announced to screen readers. The API marks
 * commands and names with backticks (`npx order-intake listen ...`): they show
 * as code, to copy.
 */
export function ErrorAlert({ error, title = 'Something went wrong' }: { error: unknown; title?: string }) {
  if (!error) return null
  const message = error instanceof Error ? error.message : String(error)
  const parts = message.split('`')
  // An odd count of backticks leaves the message as it came.
  const marked = parts.length % 2 === 1
  return (
    <Alert color="red" title={title} role="alert" variant="default">
      {marked
        ? parts.map((part, i) =>
            // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed message
            i % 2 === 1 ? <Code key={i}>{part}</Code> : <span key={i}>{part}</span>,
          )
        : message}
    </Alert>
  )
}
