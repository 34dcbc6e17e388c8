import { Anchor, Code, Group, Paper, SimpleGrid, Stack, Text } from '@mantine/core'
import type { ReactNode } from 'react'
import { Link, useParams } from 'react-router'
import { CopyTextButton } from '../../../components/copy-text-button.tsx'
import { Fact } from '../../../components/fact.tsx'
import { Page } from '../../../components/page.tsx'
import { RecordPage } from '../../../components/record-page.tsx'
import { Time } from '../../../components/time.tsx'
import { usePageEnvironment } from '../../../lib/environment.ts'
import { type RequestDetail, useRequest } from '../api/requests.ts'
import { RequestBodies } from '../components/request-bodies.tsx'
import { formatDuration, RequestStatus } from '../components/request-status.tsx'

/** /requests/:id?environment=: one request's facts, its body and answer, and the curl command repeating it. */
export function RequestRoute() {
  const { request_line_id: id = '' } = useParams()
  const env = usePageEnvironment()
  const query = useRequest(env, id)
  const back = (
    <Anchor component={Link} to={`/requests?environment=${env}`}>
      Back to the requests
    </Anchor>
  )
  return (
    <RecordPage title="Request" what="the request" query={query} back={back}>
      {(r) => <RequestDetails r={r} back={back} />}
    </RecordPage>
  )
}

function RequestDetails({ r, back }: { r: RequestDetail; back: ReactNode }) {
  return (
    <Page title={`${r.method} ${r.path}`}>
      {back}
      <Paper withBorder p="lg" radius="md" component="section" aria-label="The request">
        <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }}>
          <Fact label="Status">
            <Group gap="xs" component="span">
              <RequestStatus status={r.status} />
              {r.error_code && <Code>{r.error_code}</Code>}
            </Group>
          </Fact>
          <Fact label="Arrived">
            <Time value={r.created_at} exact />
          </Fact>
          <Fact label="Duration">{formatDuration(r.duration_ms)}</Fact>
          <Fact label="Environment">{r.environment === 'live' ? 'Live' : 'Test'}</Fact>
          <Fact label="API key">{r.key_prefix}…</Fact>
          <Fact label="Request id (X-Request-Id)">
            <Code>{r.request_id}</Code>
          </Fact>
          <Fact label="Content type">{r.content_type ?? '—'}</Fact>
          <Fact label="Order">
            {r.order_id ? (
              <Anchor component={Link} to={`/orders/${encodeURIComponent(r.order_id)}`}>
                Open the order
              </Anchor>
            ) : (
              '—'
            )}
          </Fact>
        </SimpleGrid>
      </Paper>
      <RequestBodies request={r} />
      <Stack gap="xs" component="section" aria-label="Repeat it with curl">
        <Group>
          <CopyTextButton value={r.curl}>Copy as curl</CopyTextButton>
          <Text size="sm" c="dimmed">
            The key is read from <Code>$SERVICE_API_KEY</Code>: the log never holds it.
          </Text>
        </Group>
        <Code block aria-label="curl command" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
          {r.curl}
        </Code>
      </Stack>
    </Page>
  )
}
