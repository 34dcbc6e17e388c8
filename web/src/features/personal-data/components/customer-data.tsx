import { Alert, Anchor, Button, Group, Radio, Stack, Text, TextInput, Title } from '@mantine/core'
import { type FormEvent, useState } from 'react'
import { Link } from 'react-router'
import { ConfirmModal } from '../../../components/confirm-modal.tsx'
import { DataCell, DataRow, DataTable } from '../../../components/data-table.tsx'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { Time } from '../../../components/time.tsx'
import { formatNumber } from '../../../lib/format.ts'
import {
  type CustomerQuery,
  type ErasureInput,
  type Preview,
  type Scope,
  useErase,
  useExport,
  usePreview,
} from '../api/personal-data.ts'

type Personalization = NonNullable<ErasureInput['personalization']>

const plural = (n: number, one: string, many = `${one}s`) => `${formatNumber(n)} ${n === 1 ? one : many}`

/** The fields as typed: empty ones are not sent. */
function queryOf(fields: { email: string; phone: string; name: string }, orderIds: string[]): CustomerQuery {
  return {
    ...(fields.email.trim() ? { email: fields.email.trim() } : {}),
    ...(fields.phone.trim() ? { phone: fields.phone.trim() } : {}),
    ...(fields.name.trim() ? { name: fields.name.trim() } : {}),
    ...(orderIds.length > 0 ? { order_ids: orderIds } : {}),
  }
}

/**
 * A customer's personal data, found by e-mail, phone or name (or the orders
 * picked on an order page): what is stored and what an erasure would remove,
 * then the export (developers and owners) or the erasure (owners, asked first).
 */
export function CustomerData({
  scope,
  canErase,
  pickedOrders = [],
  orderHref,
}: {
  scope: Scope
  canErase: boolean
  pickedOrders?: string[]
  orderHref: (id: string) => string
}) {
  const [fields, setFields] = useState({ email: '', phone: '', name: '' })
  const [searched, setSearched] = useState<CustomerQuery | null>(null)
  const [personalization, setPersonalization] = useState<Personalization>('finished')
  const [asking, setAsking] = useState(false)
  const preview = usePreview(scope)
  const erase = useErase(scope)
  const exported = useExport(scope)

  const find = (e: FormEvent) => {
    e.preventDefault()
    const query = queryOf(fields, pickedOrders)
    setSearched(query)
    erase.reset()
    exported.reset()
    preview.mutate(query)
  }
  const confirm = () => {
    if (!searched) return
    erase.mutate(
      { ...searched, personalization },
      {
        onSettled: () => {
          setAsking(false)
          preview.mutate(searched)
        },
      },
    )
  }
  const set = (key: keyof typeof fields) => (e: React.ChangeEvent<HTMLInputElement>) =>
    setFields({ ...fields, [key]: e.currentTarget.value })
  const found = preview.data

  return (
    <Stack gap="md">
      <form aria-label="Find a customer" onSubmit={find}>
        <Stack gap="sm">
          <Group grow align="flex-start" wrap="wrap">
            <TextInput label="E-mail" value={fields.email} onChange={set('email')} autoComplete="off" />
            <TextInput label="Phone" value={fields.phone} onChange={set('phone')} autoComplete="off" />
            <TextInput label="Name" value={fields.name} onChange={set('name')} autoComplete="off" />
          </Group>
          {pickedOrders.length > 0 && (
            <Text size="sm">
              With the {plural(pickedOrders.length, 'order')} picked:{' '}
              {pickedOrders.map((id) => (
                <Anchor key={id} component={Link} to={orderHref(id)} mr="xs">
                  {id}
                </Anchor>
              ))}
            </Text>
          )}
          <Text size="sm" c="dimmed">
            Orders matching any of them are found: e-mail and name exactly (any case), a phone by its digits.
          </Text>
          <Group>
            <Button type="submit" loading={preview.isPending}>
              Find their data
            </Button>
          </Group>
        </Stack>
      </form>
      <ErrorAlert error={preview.error} />
      {erase.data && (
        <Alert color="green" title="Erased" role="status" variant="default">
          The customer’s personal data is gone from {plural(erase.data.orders, 'order')}
          {erase.data.personalization > 0 &&
            ` (with the personalization of ${plural(erase.data.personalization, 'order')})`}
          , {plural(erase.data.request_log_lines, 'request-log body', 'request-log bodies')},{' '}
          {plural(erase.data.audit_entries, 'audit entry', 'audit entries')} and{' '}
          {plural(erase.data.webhook_answers, 'webhook answer')}.
        </Alert>
      )}
      <ErrorAlert error={erase.error} title="Not erased" />
      {exported.data && (
        <Alert color="green" title="Exported" role="status" variant="default">
          {exported.data.name} holds what is stored of {plural(exported.data.orders, 'order')}.
        </Alert>
      )}
      <ErrorAlert error={exported.error} title="Not exported" />
      {found && searched && (
        <FoundData
          found={found}
          orderHref={orderHref}
          actions={
            <Stack gap="sm">
              {canErase && found.orders.total > found.orders.already_erased && (
                <Radio.Group
                  label="Personalization and file names"
                  value={personalization}
                  onChange={(v) => setPersonalization(v as Personalization)}
                >
                  <Stack gap={4} mt={4}>
                    <Radio
                      value="finished"
                      label={`Erase them from finished orders (${formatNumber(found.orders.finished)}: completed, cancelled or test); open orders keep theirs for production`}
                    />
                    <Radio value="all" label="Erase them from every order found" />
                    <Radio value="none" label="Keep them: erase only the name, e-mail and phone" />
                  </Stack>
                </Radio.Group>
              )}
              <Group>
                <Button
                  variant="default"
                  loading={exported.isPending}
                  onClick={() => exported.mutate(searched)}
                >
                  Export as JSON
                </Button>
                {canErase && (
                  <Button color="red.9" disabled={found.orders.total === 0} onClick={() => setAsking(true)}>
                    Erase…
                  </Button>
                )}
              </Group>
            </Stack>
          }
        />
      )}
      {found && (
        <ConfirmModal
          opened={asking}
          title="Erase this customer’s personal data?"
          confirmLabel={`Erase from ${plural(found.orders.total, 'order')}`}
          busy={erase.isPending}
          onCancel={() => setAsking(false)}
          onConfirm={confirm}
        >
          This cannot be undone. The name becomes “erased”, e-mail and phone are removed
          {personalization === 'none'
            ? ''
            : personalization === 'all'
              ? ', and so are the personalization and file names of every order found'
              : ', and so are the personalization and file names of the finished orders'}
          ; the request log’s bodies, webhook answers and audit values that hold them go too. The orders stay
          with their numbers, items, prices and statuses. Integrators polling the orders see them change; no
          webhook is sent and no one is e-mailed. The audit log records that you erased it, never whose.
        </ConfirmModal>
      )}
    </Stack>
  )
}

/** What the search found: the counts, the first orders, and the actions. */
function FoundData({
  found,
  actions,
  orderHref,
}: {
  found: Preview
  actions: React.ReactNode
  orderHref: (id: string) => string
}) {
  const o = found.orders
  if (o.total === 0) {
    return (
      <Text role="status">
        No order holds this customer’s data
        {found.request_log_lines > 0 &&
          `, but ${plural(found.request_log_lines, 'request-log body', 'request-log bodies')} do`}
        .
      </Text>
    )
  }
  return (
    <Stack gap="sm">
      <Title order={2} size="h4">
        {plural(o.total, 'order')} found
      </Title>
      <Text size="sm" role="status">
        {formatNumber(o.live)} live, {formatNumber(o.test)} test; {formatNumber(o.finished)} finished
        {o.already_erased > 0 && `; ${formatNumber(o.already_erased)} already erased`}. Their data is also in{' '}
        {plural(found.request_log_lines, 'request-log body', 'request-log bodies')},{' '}
        {plural(found.audit_entries, 'audit entry', 'audit entries')} and{' '}
        {plural(found.webhook_answers, 'webhook answer')}. Their {plural(found.events_kept, 'event')} hold
        ids, numbers and statuses only, and stay.
      </Text>
      <DataTable
        label={o.total > o.first.length ? `The first ${o.first.length} orders found` : 'The orders found'}
        caption
        columns={['Order', 'Customer', 'Production', 'Created']}
      >
        {o.first.map((order) => (
          <DataRow key={order.id}>
            <DataCell label="Order" rowHeader>
              <Anchor component={Link} to={orderHref(order.id)}>
                {order.external_order_id}
              </Anchor>
              {order.environment === 'test' && ' (test)'}
            </DataCell>
            <DataCell label="Customer">
              {order.erased_at
                ? 'erased'
                : [order.customer.name, order.customer.email, order.customer.phone]
                    .filter(Boolean)
                    .join(', ')}
            </DataCell>
            <DataCell label="Production">
              {order.production_status ?? 'none'}
              {order.finished && ' (finished)'}
            </DataCell>
            <DataCell label="Created">
              <Time value={order.created_at} />
            </DataCell>
          </DataRow>
        ))}
      </DataTable>
      {actions}
    </Stack>
  )
}
