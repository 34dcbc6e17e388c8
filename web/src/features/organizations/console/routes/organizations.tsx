import { Anchor, Button, Card, Group, Loader, Text, TextInput, Title } from '@mantine/core'
import { type FormEvent, useState } from 'react'
import { Link } from 'react-router'
import { DataCell, DataRow, DataTable } from '../../../../components/data-table.tsx'
import { ErrorAlert } from '../../../../components/error-alert.tsx'
import { InvitationLink } from '../../../../components/invitation-link.tsx'
import { Page } from '../../../../components/page.tsx'
import { Time } from '../../../../components/time.tsx'
import { formatNumber } from '../../../../lib/format.ts'
import { useInviteOwner } from '../../../members/console/api/organization-members.ts'
import { useCreateOrganization, useOrganizations } from '../api/organizations.ts'
import { WebhookHealth } from '../components/webhook-health.tsx'

/** Create an organization, then invite its first owner (two steps: either can be retried). */
function CreateOrganization() {
  const create = useCreateOrganization()
  const invite = useInviteOwner()
  const [name, setName] = useState('')
  const [email, setEmail] = useState('')
  const [created, setCreated] = useState<{ id: string; name: string } | null>(null)

  async function submit(event: FormEvent) {
    event.preventDefault()
    invite.reset()
    const organization = created ?? (await create.mutateAsync(name.trim()).catch(() => null))
    if (!organization) return
    setCreated(organization)
    await invite.mutateAsync({ orgId: organization.id, email: email.trim() }).catch(() => null)
  }

  function again() {
    setCreated(null)
    setName('')
    setEmail('')
    create.reset()
    invite.reset()
  }

  return (
    <Card withBorder padding="md" component="section" aria-labelledby="create-org">
      <Title order={2} size="h4" id="create-org" mb="sm">
        Create an organization
      </Title>
      {invite.data ? (
        <>
          <Text mb="xs">
            Organization <b>{created?.name}</b> created.
          </Text>
          <InvitationLink email={invite.data.invitation.email} url={invite.data.url} />
          <Button variant="default" mt="sm" onClick={again}>
            Create another
          </Button>
        </>
      ) : (
        <form onSubmit={submit}>
          <Group align="flex-end">
            <TextInput
              label="Name"
              w={{ base: '100%', sm: 'auto' }}
              required
              maxLength={255}
              value={created?.name ?? name}
              disabled={!!created}
              onChange={(e) => setName(e.currentTarget.value)}
            />
            <TextInput
              label="First owner's email"
              w={{ base: '100%', sm: 'auto' }}
              type="email"
              required
              value={email}
              onChange={(e) => setEmail(e.currentTarget.value)}
            />
            <Button type="submit" loading={create.isPending || invite.isPending}>
              {created ? 'Invite the owner' : 'Create and invite'}
            </Button>
          </Group>
          {created && !invite.data && (
            <Text size="sm" mt="xs">
              Organization {created.name} was created; its owner is not invited yet.
            </Text>
          )}
          <ErrorAlert error={create.error ?? invite.error} />
        </form>
      )}
    </Card>
  )
}

export function OrganizationsRoute() {
  const organizations = useOrganizations()
  return (
    <Page
      title="Organizations"
      lead="Every organization with its live orders (test orders are never counted) and its live webhooks. Refreshed every 5 seconds."
    >
      <CreateOrganization />
      <ErrorAlert error={organizations.error} />
      {organizations.isPending ? (
        <Loader aria-label="Loading organizations" />
      ) : (
        <DataTable
          label="Organizations, oldest first"
          caption
          columns={[
            'Organization',
            'Live orders today (UTC)',
            'Live orders, all time',
            'In production',
            'Webhooks (live)',
            'Created',
          ]}
        >
          {organizations.data?.map((o) => (
            <DataRow key={o.id}>
              <DataCell label="Organization" rowHeader>
                <Anchor component={Link} to={`/operator/organizations/${o.id}`}>
                  {o.name}
                </Anchor>
              </DataCell>
              <DataCell label="Live orders today (UTC)">
                {formatNumber(o.live_orders.today.orders_total)}
              </DataCell>
              <DataCell label="Live orders, all time">
                {formatNumber(o.live_orders.all_time.orders_total)}
              </DataCell>
              <DataCell label="In production">
                {formatNumber(o.live_orders.all_time.orders_by_status.in_production ?? 0)}
              </DataCell>
              <DataCell label="Webhooks (live)">
                <WebhookHealth health={o.webhooks.live} />
              </DataCell>
              <DataCell label="Created">
                <Time value={o.created_at} />
              </DataCell>
            </DataRow>
          ))}
        </DataTable>
      )}
    </Page>
  )
}
