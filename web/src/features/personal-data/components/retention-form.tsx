import { Alert, Button, Checkbox, Group, NumberInput, Stack, Text, Title } from '@mantine/core'
import { type FormEvent, useEffect, useState } from 'react'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { type Retention, type Scope, useRetention, useSetRetention } from '../api/personal-data.ts'

/**
 * How long the organization keeps each kind of data: request bodies, the
 * receivers' answers, and the personal data of finished orders (off unless
 * set). The background prune applies a change within ten minutes.
 */
export function RetentionForm({ scope }: { scope: Scope }) {
  const retention = useRetention(scope)
  const save = useSetRetention(scope)
  const [values, setValues] = useState<Retention | null>(null)
  useEffect(() => {
    if (retention.data && values === null) setValues(retention.data)
  }, [retention.data, values])
  if (!values) return <ErrorAlert error={retention.error} />
  const submit = (e: FormEvent) => {
    e.preventDefault()
    save.mutate(values)
  }
  const days = (v: string | number, fallback: number) => (typeof v === 'number' ? v : fallback)
  const finishedOn = values.personal_data_retention_days !== null
  return (
    <form aria-label="Retention" onSubmit={submit}>
      <Stack gap="sm">
        <Title order={2} size="h4">
          How long data is kept
        </Title>
        <Text size="sm" c="dimmed">
          Orders themselves are kept; these are the copies of what your customers sent. A change applies
          within ten minutes, to what is already stored too.
        </Text>
        <Group align="flex-start" grow wrap="wrap">
          <NumberInput
            label="Request bodies, in days"
            description="The request log’s request and error bodies (0 to 30); its lines stay 30 days."
            min={0}
            max={30}
            value={values.request_body_retention_days}
            onChange={(v) => setValues({ ...values, request_body_retention_days: days(v, 0) })}
          />
          <NumberInput
            label="Webhook answers, in days"
            description="What your receivers answered to deliveries (0 to 365)."
            min={0}
            max={365}
            value={values.webhook_answer_retention_days}
            onChange={(v) => setValues({ ...values, webhook_answer_retention_days: days(v, 0) })}
          />
        </Group>
        <Checkbox
          label="Erase the customer’s personal data once an order is finished"
          description="Name, e-mail, phone, personalization and file names, a number of days after production completed or was cancelled (test orders: after they were created)."
          checked={finishedOn}
          onChange={(e) =>
            setValues({ ...values, personal_data_retention_days: e.currentTarget.checked ? 90 : null })
          }
        />
        {finishedOn && (
          <NumberInput
            label="Days after an order finished"
            min={1}
            max={3650}
            maw={320}
            value={values.personal_data_retention_days ?? 90}
            onChange={(v) => setValues({ ...values, personal_data_retention_days: days(v, 1) })}
          />
        )}
        <ErrorAlert error={save.error} title="Not saved" />
        {save.isSuccess && !save.isPending && (
          <Alert color="green" role="status" variant="default" title="Saved">
            The prune applies it within ten minutes.
          </Alert>
        )}
        <Group>
          <Button type="submit" loading={save.isPending}>
            Save retention
          </Button>
        </Group>
      </Stack>
    </form>
  )
}
