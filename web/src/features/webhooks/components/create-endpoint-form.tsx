import { Anchor, Button, Paper, Stack, TextInput, Title } from '@mantine/core'
import { type FormEvent, useState } from 'react'
import { Link } from 'react-router'
import { Marked, RefusalAlert } from '../../../components/error-alert.tsx'
import { SecretReveal } from '../../../components/secret-reveal.tsx'
import { readRefusal } from '../../../lib/field-errors.ts'
import { type Env, useCreateEndpoint } from '../api/webhooks.ts'
import { EventsPicker } from './events-picker.tsx'

/** What the service may name in a refusal of a new endpoint, in this form's words. */
const LABELS = { url: 'URL', description: 'Description', enabled_events: 'Event types' }

export function CreateEndpointForm({ env }: { env: Env }) {
  const create = useCreateEndpoint(env)
  const [url, setUrl] = useState('')
  const [description, setDescription] = useState('')
  const [events, setEvents] = useState<string[]>(['*'])
  const refusal = readRefusal(create.error, LABELS)
  const beside = (field: keyof typeof LABELS) => {
    const message = refusal?.fields[field]
    return message ? <Marked text={message} /> : undefined
  }

  const [noEvents, setNoEvents] = useState(false)
  const submit = (e: FormEvent) => {
    e.preventDefault()
    setNoEvents(events.length === 0)
    if (events.length === 0) return
    create.mutate(
      { url, description, enabled_events: events },
      {
        onSuccess: () => {
          setUrl('')
          setDescription('')
          setEvents(['*'])
        },
      },
    )
  }
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby="create-endpoint-heading">
      <Title order={2} size="h3" id="create-endpoint-heading" mb="sm">
        Add a {env} endpoint
      </Title>
      <form onSubmit={submit}>
        <Stack gap="sm">
          <TextInput
            label="URL"
            description="https, on a public host; it cannot be changed later"
            type="url"
            required
            placeholder="https://example.com/webhooks"
            value={url}
            onChange={(e) => setUrl(e.currentTarget.value)}
            error={beside('url')}
          />
          <TextInput
            label="Description (optional)"
            maxLength={500}
            value={description}
            onChange={(e) => setDescription(e.currentTarget.value)}
            error={beside('description')}
          />
          <EventsPicker
            value={events}
            onChange={(v) => {
              setNoEvents(false)
              setEvents(v)
            }}
            error={noEvents ? 'Choose at least one event type, or all' : refusal?.fields.enabled_events}
          />
          <div>
            <Button type="submit" loading={create.isPending}>
              Add endpoint
            </Button>
          </div>
        </Stack>
      </form>
      <Stack mt="md">
        <RefusalAlert refusal={refusal} title="No endpoint was added" />
        {create.data && (
          <>
            <SecretReveal
              title={`Endpoint added: ${create.data.endpoint.url}`}
              label="Signing secret"
              value={create.data.secret}
            />
            <Anchor component={Link} to={`/webhooks/${create.data.endpoint.id}?environment=${env}`}>
              Open the endpoint
            </Anchor>
          </>
        )}
      </Stack>
    </Paper>
  )
}
