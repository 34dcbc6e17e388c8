import { Button, Code, Group, Paper, Select, Stack, Text, TextInput, Title } from '@mantine/core'
import { type FormEvent, useState } from 'react'
import { useNavigate } from 'react-router'
import { ConfirmModal } from '../../../components/confirm-modal.tsx'
import { ErrorAlert, RefusalAlert } from '../../../components/error-alert.tsx'
import { SecretReveal } from '../../../components/secret-reveal.tsx'
import { Time, useNow } from '../../../components/time.tsx'
import type { Endpoint } from '../../../lib/api.ts'
import { readRefusal } from '../../../lib/field-errors.ts'
import { exactTime } from '../../../lib/format.ts'
import {
  type Env,
  FILTERABLE_TYPES,
  useDeleteEndpoint,
  usePing,
  useRotateSecret,
  useSendSample,
  useUpdateEndpoint,
} from '../api/webhooks.ts'
import { EventsPicker } from './events-picker.tsx'

/** Description and event filter (PATCH); the URL is fixed. */
export function EndpointSettings({ env, endpoint }: { env: Env; endpoint: Endpoint }) {
  const update = useUpdateEndpoint(env, endpoint.id)
  const [description, setDescription] = useState(endpoint.description)
  const [events, setEvents] = useState<string[]>(endpoint.enabled_events)
  const [noEvents, setNoEvents] = useState(false)
  const refusal = readRefusal(update.error, { description: 'Description', enabled_events: 'Event types' })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    setNoEvents(events.length === 0)
    if (events.length === 0) return
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
            error={refusal?.fields.description}
            onChange={(e) => setDescription(e.currentTarget.value)}
          />
          <EventsPicker
            value={events}
            onChange={(v) => {
              setNoEvents(false)
              setEvents(v)
            }}
            error={noEvents ? 'Choose at least one event type, or all' : refusal?.fields.enabled_events}
          />
          <Group>
            <Button type="submit" loading={update.isPending}>
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
      <RefusalAlert refusal={refusal} title="The settings were not saved" />
    </Paper>
  )
}

const GRACE = [
  { value: '0', label: 'None: the old secret stops now' },
  { value: '3600', label: '1 hour' },
  { value: '86400', label: '24 hours' },
  { value: '604800', label: '7 days' },
]

type SampleType = (typeof FILTERABLE_TYPES)[number]

/** The end of a queued event's message: it goes at once, or waits for the failing endpoint's probe. */
function Waits({ probe }: { probe: string | null }) {
  const now = useNow()
  if (probe === null) return <>.</>
  return Date.parse(probe) <= now ? (
    <>, and waits for the failing endpoint’s probe, due now.</>
  ) : (
    <>
      , and waits for the failing endpoint’s next probe, <Time value={probe} />.
    </>
  )
}

/** A test ping, a sample event of a type the endpoint takes, and a new secret (with a grace period). */
export function EndpointActions({ env, endpoint }: { env: Env; endpoint: Endpoint }) {
  const ping = usePing(env, endpoint.id)
  const sample = useSendSample(env, endpoint.id)
  const rotate = useRotateSecret(env, endpoint.id)
  const [grace, setGrace] = useState('86400')
  const [rotating, setRotating] = useState(false)
  const takes = FILTERABLE_TYPES.filter(
    (type) => endpoint.enabled_events.includes('*') || endpoint.enabled_events.includes(type),
  )
  const [sampleType, setSampleType] = useState<SampleType | null>(takes[0] ?? null)
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
          {ping.data && (
            <Text size="sm" role="status">
              Ping queued: it appears in the delivery log below
              <Waits probe={ping.data.data.endpoint_next_probe_at} />
            </Text>
          )}
        </Group>
        {env === 'live' ? (
          <>
            <Text size="sm">
              A sample is an event built like a real one, with <Code>"sample": true</Code> in its data and an
              order that exists nowhere; it goes to this endpoint only.
            </Text>
            <Group align="flex-end">
              <Select
                label="Sample event type"
                data={takes}
                value={sampleType}
                allowDeselect={false}
                onChange={(v) => setSampleType(v as SampleType | null)}
                w={280}
                maw="100%"
              />
              <Button
                variant="default"
                loading={sample.isPending}
                disabled={!sampleType}
                onClick={() => sampleType && sample.mutate(sampleType)}
              >
                Send sample event
              </Button>
              {sample.data && (
                <Text size="sm" role="status">
                  Sample {sample.data.type} queued: it appears in the delivery log below
                  <Waits probe={sample.data.endpoint_next_probe_at} />
                </Text>
              )}
            </Group>
          </>
        ) : (
          <Text size="sm">
            Test endpoints receive pings only. Send sample events to a live endpoint, or to your machine with{' '}
            <Code>listen</Code> and <Code>trigger</Code> and a test key.
          </Text>
        )}
        <Group align="flex-end">
          <Select
            label="Old secret keeps signing for"
            data={GRACE}
            value={grace}
            allowDeselect={false}
            onChange={(v) => v && setGrace(v)}
            w={280}
            maw="100%"
          />
          <Button variant="default" loading={rotate.isPending} onClick={() => setRotating(true)}>
            Rotate secret
          </Button>
        </Group>
        <ConfirmModal
          opened={rotating}
          title="Rotate the signing secret?"
          onCancel={() => setRotating(false)}
          confirmLabel="Rotate secret"
          busy={rotate.isPending}
          onConfirm={() => rotate.mutate(Number(grace), { onSettled: () => setRotating(false) })}
        >
          {grace === '0'
            ? 'A new secret signs every delivery from now on and the old one stops at once: until the receiver verifies with the new secret, it rejects every delivery.'
            : `A new secret signs every delivery from now on; the old one signs too for ${GRACE.find((g) => g.value === grace)?.label}. The receiver must verify with the new secret by then.`}{' '}
          Nothing is sent to tell the receiver; the new secret is shown once, here.
        </ConfirmModal>
        {rotate.data && (
          <SecretReveal
            title={`New secret; the old one signs too until ${exactTime(rotate.data.previous_secret_expires_at)}`}
            label="New signing secret"
            value={rotate.data.secret}
          />
        )}
        <ErrorAlert error={ping.error ?? sample.error ?? rotate.error} />
      </Stack>
    </Paper>
  )
}

/**
 * Deletion, apart from the everyday actions and confirmed by typing the URL:
 * it cannot be undone and fails the endpoint's pending deliveries.
 */
export function EndpointDangerZone({ env, endpoint }: { env: Env; endpoint: Endpoint }) {
  const remove = useDeleteEndpoint(env, endpoint.id)
  const navigate = useNavigate()
  const [deleting, setDeleting] = useState(false)
  return (
    <Paper
      withBorder
      p="lg"
      radius="md"
      component="section"
      aria-labelledby="danger-heading"
      style={{ borderColor: 'var(--mantine-color-red-7)' }}
    >
      <Title order={2} size="h3" id="danger-heading" mb="sm">
        Danger zone
      </Title>
      <Group justify="space-between">
        <Text size="sm" style={{ flex: '1 1 20rem' }}>
          Deleting the endpoint stops every delivery to it and fails the pending ones. It cannot be enabled
          again: add a new endpoint instead.
        </Text>
        <Button color="red.9" variant="outline" onClick={() => setDeleting(true)}>
          Delete endpoint
        </Button>
      </Group>
      <ErrorAlert error={remove.error} title="The endpoint was not deleted" />
      <ConfirmModal
        opened={deleting}
        title="Delete endpoint"
        onCancel={() => setDeleting(false)}
        confirmLabel="Delete endpoint"
        busy={remove.isPending}
        typed={{ label: "The endpoint's URL", value: endpoint.url }}
        onConfirm={() =>
          remove.mutate(undefined, {
            onSuccess: () => navigate(`/webhooks?environment=${env}`),
            onSettled: () => setDeleting(false),
          })
        }
      >
        It receives nothing more, its pending deliveries fail, and it cannot be enabled again. Nothing is sent
        to tell its receiver; the deletion is in the audit log. Type its URL to confirm.
      </ConfirmModal>
    </Paper>
  )
}
