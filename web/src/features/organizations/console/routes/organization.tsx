import { Anchor, Card, Group, Loader, Text, Title } from '@mantine/core'
import type { ReactNode } from 'react'
import { Link, useParams } from 'react-router'
import { ErrorAlert } from '../../../../components/error-alert.tsx'
import { Page } from '../../../../components/page.tsx'
import { OrganizationKeys } from '../../../api-keys/console/components/organization-keys.tsx'
import { OrganizationRules } from '../../../automation/console/components/organization-rules.tsx'
import { OrganizationMembers } from '../../../members/console/components/organization-members.tsx'
import { OrganizationWebhooks } from '../../../webhooks/console/components/organization-webhooks.tsx'
import { useOrganization } from '../api/organizations.ts'
import { WebhookHealth } from '../components/webhook-health.tsx'

function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section aria-labelledby={id}>
      <Title order={2} size="h4" id={id} mb="sm">
        {title}
      </Title>
      {children}
    </section>
  )
}

export function OrganizationRoute() {
  const { orgId = '' } = useParams()
  const organization = useOrganization(orgId)
  const o = organization.data
  return (
    <Page title={o ? o.name : 'Organization'}>
      <Anchor component={Link} to="/operator/organizations" w="fit-content">
        All organizations
      </Anchor>
      <ErrorAlert error={organization.error} />
      {!o ? (
        organization.isPending && <Loader aria-label="Loading the organization" />
      ) : (
        <>
          <Card withBorder>
            <Group gap="xl" style={{ rowGap: 'var(--mantine-spacing-xs)' }}>
              <Text>
                Live orders today (UTC): <b>{o.live_orders.today.orders_total}</b>
              </Text>
              <Text>
                All time: <b>{o.live_orders.all_time.orders_total}</b>
              </Text>
              <Text>
                In production: <b>{o.live_orders.all_time.orders_by_status.in_production ?? 0}</b>
              </Text>
              <WebhookHealth health={o.webhooks.live} />
            </Group>
          </Card>
          <Anchor component={Link} to={`/operator/production?organization_id=${o.id}`} w="fit-content">
            This organization's orders on the production board
          </Anchor>
          <Anchor component={Link} to={`/operator/organizations/${o.id}/personal-data`} w="fit-content">
            Its customers’ personal data: export, erase, retention
          </Anchor>
          <Section id="org-members" title="Members">
            <OrganizationMembers orgId={o.id} />
          </Section>
          <Section id="org-keys" title="API keys">
            <OrganizationKeys orgId={o.id} />
          </Section>
          <Section id="org-webhooks" title="Webhooks">
            <OrganizationWebhooks orgId={o.id} />
          </Section>
          <Section id="org-automation" title="Automation rules">
            <OrganizationRules orgId={o.id} />
          </Section>
        </>
      )}
    </Page>
  )
}
