import {
  Button,
  Checkbox,
  Group,
  Paper,
  SegmentedControl,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core'
import { type FormEvent, useState } from 'react'
import { RefusalAlert } from '../../../components/error-alert.tsx'
import { SecretReveal } from '../../../components/secret-reveal.tsx'
import { type Env, useRememberedEnvironment } from '../../../lib/environment.ts'
import { checkLength } from '../../../lib/field-errors.ts'
import { useFieldMessages } from '../../../lib/use-field-messages.ts'
import { SCOPE_PERMITS, SCOPES, useCreateApiKey } from '../api/api-keys.ts'

/** What the service may name in a refusal, in this form's words. */
const LABELS = { environment: 'Environment', scopes: 'Scopes', name: 'Name', expires_at: 'Expires' }

/** Today in the reader's calendar, as a date field holds it (YYYY-MM-DD). */
const today = () => {
  const d = new Date()
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`
}

/** Developers create keys: the key is shown once, to copy. */
export function CreateKeyForm() {
  const create = useCreateApiKey()
  // A key for the data the member is looking at, at first; choosing another picks only the key's
  // environment, not the dashboard's.
  const [remembered] = useRememberedEnvironment()
  const [environment, setEnvironment] = useState<Env>(remembered)
  const [scopes, setScopes] = useState<string[]>(['orders:read', 'orders:write', 'files:write'])
  const [name, setName] = useState('')
  const [expires, setExpires] = useState('')
  // The form's own checks, shown until the field changes; then the service's refusals, beside their fields.
  const { refusal, message, check, changed } = useFieldMessages(create.error, LABELS)

  const submit = (e: FormEvent) => {
    e.preventDefault()
    const passes = check({
      scopes: scopes.length === 0 ? 'Choose at least one scope' : undefined,
      name: checkLength('Name', name.trim(), { max: 255 }),
      expires_at: expires && expires < today() ? 'Expires must be today or later' : undefined,
    })
    if (!passes) return
    create.mutate(
      {
        environment,
        scopes: scopes as never,
        name: name.trim() || null,
        // The end of the chosen day, in the reader's time zone.
        expires_at: expires ? new Date(`${expires}T23:59:59`).toISOString() : null,
      },
      { onSuccess: () => setName('') },
    )
  }
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby="create-key-heading">
      <Title order={2} size="h3" id="create-key-heading" mb="sm">
        Create a key
      </Title>
      <form onSubmit={submit}>
        <Stack gap="sm">
          <div>
            <Text size="sm" fw={500} id="key-environment-label">
              Environment
            </Text>
            <SegmentedControl
              aria-labelledby="key-environment-label"
              value={environment}
              onChange={(v) => setEnvironment(v === 'live' ? 'live' : 'test')}
              data={[
                { value: 'live', label: 'Live' },
                { value: 'test', label: 'Test' },
              ]}
            />
          </div>
          <Checkbox.Group
            label="Scopes"
            value={scopes}
            onChange={(value) => {
              changed('scopes')
              setScopes(value)
            }}
            error={message('scopes')}
            withAsterisk
          >
            <Stack mt="xs" gap="xs">
              {SCOPES.map((s) => (
                <Checkbox
                  key={s}
                  value={s}
                  label={`${SCOPE_PERMITS[s].label} (${s})`}
                  description={SCOPE_PERMITS[s].permits}
                />
              ))}
            </Stack>
          </Checkbox.Group>
          <Group align="flex-end">
            <TextInput
              label="Name (optional)"
              value={name}
              maxLength={255}
              error={message('name')}
              onChange={(e) => {
                changed('name')
                setName(e.currentTarget.value)
              }}
              w={260}
            />
            <TextInput
              label="Expires (optional)"
              description="Never, when left empty"
              type="date"
              value={expires}
              min={today()}
              error={message('expires_at')}
              onChange={(e) => {
                changed('expires_at')
                setExpires(e.currentTarget.value)
              }}
              w={200}
            />
            <Button type="submit" loading={create.isPending}>
              Create key
            </Button>
          </Group>
        </Stack>
      </form>
      <Stack mt="md">
        <RefusalAlert refusal={refusal} title="No key was created" />
        {create.data && (
          <SecretReveal
            title={`New ${create.data.api_key.environment} key ${create.data.api_key.key_prefix}…`}
            label="API key"
            value={create.data.key}
          />
        )}
      </Stack>
    </Paper>
  )
}
