import { Alert, Code, Text } from '@mantine/core'
import type { Refusal } from '../lib/field-errors.ts'

/**
 * A message with the API's backticked commands and names
 * (`npx order-intake listen ...`) shown as code, to copy. An odd count of
 * backticks leaves it as it came.
 */
export function Marked({ text }: { text: string }) {
  const parts = text.split('`')
  if (parts.length % 2 === 0) return <>{text}</>
  return (
    <>
      {parts.map((part, i) =>
        // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed message
        i % 2 === 1 ? <Code key={i}>{part}</Code> : <span key={i}>{part}</span>,
      )}
    </>
  )
}

/** A failed request's message, announced to screen readers. */
export function ErrorAlert({ error, title = 'Something went wrong' }: { error: unknown; title?: string }) {
  if (!error) return null
  const message = error instanceof Error ? error.message : String(error)
  return (
    <Alert color="red" title={title} role="alert" variant="default">
      <Marked text={message} />
    </Alert>
  )
}

/**
 * A form's refusal (readRefusal): what names no field of the form, a pointer
 * to the fields that carry their own message, and the codes for support,
 * folded in a details line.
 */
export function RefusalAlert({ refusal, title }: { refusal: Refusal | undefined; title: string }) {
  if (!refusal) return null
  const beside = Object.keys(refusal.fields).length
  return (
    <Alert color="red" title={title} role="alert" variant="default">
      {refusal.others.map((message) => (
        <Text key={message} size="sm">
          <Marked text={message} />
        </Text>
      ))}
      {beside > 0 && (
        <Text size="sm">
          {beside === 1
            ? 'One field needs a change: its message is beside it.'
            : `${beside} fields need a change: each has its message beside it.`}
        </Text>
      )}
      {refusal.support && (
        <Text size="xs" c="dimmed" component="details" mt={4}>
          <summary>For support</summary>
          <Code>{refusal.support}</Code>
        </Text>
      )}
    </Alert>
  )
}
