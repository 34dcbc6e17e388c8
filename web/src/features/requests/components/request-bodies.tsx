import { Code, Paper, SimpleGrid, Text, Title } from '@mantine/core'
import { formatNumber } from '../../../lib/format.ts'
import type { RequestDetail } from '../api/requests.ts'

/** JSON indented for reading; anything else (or JSON cut at 16 KB) as it came. */
export function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2)
  } catch {
    return body
  }
}

function Body({
  id,
  title,
  text,
  notes,
}: {
  id: string
  title: string
  text: string | null
  notes: string[]
}) {
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby={id} miw={0}>
      <Title order={2} size="h4" id={id} mb="xs">
        {title}
      </Title>
      {notes.map((note) => (
        <Text key={note} size="sm" c="dimmed" mb="xs">
          {note}
        </Text>
      ))}
      {text !== null && (
        <Code block aria-label={title} style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
          {pretty(text)}
        </Code>
      )}
    </Paper>
  )
}

/** Why a body is not shown. */
const HIDDEN = 'Bodies are shown to owners and developers.'

/** The body as sent and the answer, side by side on a wide screen, one above the other on a phone. */
export function RequestBodies({ request: r }: { request: RequestDetail }) {
  const sent: string[] = []
  const answer: string[] = []
  if (r.bodies_hidden) {
    sent.push(HIDDEN)
    answer.push(HIDDEN)
  } else {
    if (r.request_body_truncated && r.request_body_bytes !== null)
      sent.push(`Truncated at 16 KB of ${formatNumber(r.request_body_bytes)} bytes.`)
    if (r.request_body === null)
      sent.push(r.request_body_bytes ? 'Not kept: successful reads keep only the line.' : 'No body was sent.')
    if (r.response_body === null)
      answer.push(
        r.status < 400
          ? `${r.status}: successful answers are not kept (what they returned is in the API).`
          : 'Not kept.',
      )
  }
  return (
    <SimpleGrid cols={{ base: 1, md: 2 }}>
      <Body id="request-body-heading" title="Request body" text={r.request_body} notes={sent} />
      <Body id="answer-heading" title="Answer" text={r.response_body} notes={answer} />
    </SimpleGrid>
  )
}
