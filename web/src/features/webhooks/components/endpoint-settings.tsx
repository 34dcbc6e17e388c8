import { Button, Group, Paper, Select, Stack, Text, TextInput, Title } from '@mantine/core'
import { type FormEvent, useState } from 'react'
import { useNavigate } from 'react-router'
import { ConfirmModal } from '../../../components/confirm-modal.tsx'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { SecretReveal } from '../../../components/secret-reveal.tsx'
import type { Endpoint } from '../../../lib/api.ts'
import { exactTime } from '../../../lib/format.ts'
import { type Env, useDeleteEndpoint, usePing, useRotateSecret, useUpdateEndpoint } from '../api/webhooks.ts'
import { EventsPicker } from './events-picker.tsx'

/** Description and event filter (PATCH); the URL is fixed. */
export function EndpointSettings({ env, endpoint }: { env: Env; endpoint: Endpoint }) {
  const update = useUpdateEndpoint(env, endpoint.id)
  const [description, setDescription] = useState(endpoint.description)
  const [events, setEvents] = useState<string[]>(endpoint.enabled_events)
  const submit = (e: FormEvent) => {
    e.preventDefault()
    update.mutate({ description, enabled_events: events })
  }
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby="settings-heading">
      <Title order={2} size="h3" id="settings-heading" mb="sm">
        Settings
      </Title>
      <form onSubmit={submit}>
        <Stack gap="sm">
          <TextInput
            label="Description"
            maxLength={500}
            value={description}
            onChange={(e) => setDescription(e.currentTarget.value)}
          />
          <EventsPicker value={events} onChange={setEvents} />
          <Group>
            <Button type="submit" loading={update.isPending} disabled={events.length === 0}>
              Save settings
            </Button>
            {update.isSuccess && (
              <Text size="sm" role="status">
                Saved.
              </Text>
            )}
          </Group>
        </Stack>
      </form>
      <ErrorAlert error={update.error} title="The settings were not saved" />
    </Paper>
  )
}

const GRACE = [
  { value: '0', label: 'None: the old secret stops now' },
  { value: '3600', label: '1 hour' },
  { value: '86400', label: '24 hours' },
  { value: '604800', label: '7 days' },
]

/** A test ping, a new secret (with a grace period), and deletion. */
export function EndpointActions({ env, endpoint }: { env: Env; endpoint: Endpoint }) {
  const ping = usePing(env, endpoint.id)
  const rotate = useRotateSecret(env, endpoint.id)
  const remove = useDeleteEndpoint(env, endpoint.id)
  const navigate = useNavigate()
  const [grace, setGrace] = useState('86400')
  const [deleting, setDeleting] = useState(false)
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby="actions-heading">
      <Title order={2} size="h3" id="actions-heading" mb="sm">
        Secret and tests
      </Title>
      <Stack gap="sm">
        <Group align="flex-end">
          <Button variant="default" loading={ping.isPending} onClick={() => ping.mutate(undefined)}>
            Send test ping
          </Button>
          {ping.isSuccess && (
            <Text size="sm" role="status">
              Ping queued: it appears in the delivery log below.
            </Text>
          )}
        </Group>
        <Group align="flex-end">
          <Select
            label="Old secret keeps signing for"
            data={GRACE}
            value={grace}
            allowDeselect={false}
            onChange={(v) => v && setGrace(v)}
            w={280}
          />
          <Button variant="default" loading={rotate.isPending} onClick={() => rotate.mutate(Number(grace))}>
            Rotate secret
          </Button>
        </Group>
        {rotate.data && (
          <SecretReveal
            title={`New secret; the old one signs too until ${exactTime(rotate.data.previous_secret_expires_at)}`}
            label="New signing secret"
            value={rotate.data.secret}
          />
        )}
        <div>
          <Button color="red" variant="light" onClick={() => setDeleting(true)}>
            Delete endpoint
          </Button>
        </div>
        <ErrorAlert error={ping.error ?? rotate.error ?? remove.error} />
      </Stack>
      <ConfirmModal
        opened={deleting}
        title="Delete endpoint"
        onCancel={() => setDeleting(false)}
        confirmLabel="Delete endpoint"
        busy={remove.isPending}
        onConfirm={() =>
          remove.mutate(undefined, {
            onSuccess: () => navigate(`/webhooks?environment=${env}`),
            onSettled: () => setDeleting(false),
          })
        }
      >
        Delete {endpoint.url}? It receives nothing more, its pending deliveries fail, and it cannot be enabled
        again (add a new endpoint instead).
      </ConfirmModal>
    </Paper>
  )
}
