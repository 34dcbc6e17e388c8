import { Anchor, AppShell, Burger, Button, Group, Loader, NavLink, Popover, Stack, Text } from '@mantine/core'
import { useDisclosure } from '@mantine/hooks'
import { useState } from 'react'
import { Link, Navigate, Outlet, useLocation, useNavigate } from 'react-router'
import { useStacked } from '../components/data-table.tsx'
import { ConsoleSearch, HeaderSearch } from '../components/header-search.tsx'
import { TestModeBanner } from '../components/test-mode-banner.tsx'
import { useAccount, useSignOut } from '../features/auth/api/session.ts'

/** The sections of an organization's dashboard (members); `owners` ones only for owners, `developers` ones not for viewers. */
const SECTIONS = [
  { to: '/home', label: 'Home' },
  { to: '/orders', label: 'Orders' },
  { to: '/api-keys', label: 'API keys' },
  { to: '/webhooks', label: 'Webhooks' },
  { to: '/requests', label: 'Requests' },
  { to: '/products', label: 'Products' },
  { to: '/automation', label: 'Automation' },
  { to: '/usage', label: 'Usage', owners: true },
  { to: '/personal-data', label: 'Personal data', developers: true },
  { to: '/members', label: 'Members' },
  { to: '/audit-log', label: 'Audit log' },
  { to: '/account', label: 'Account' },
] as const

/** The operator's console: an operator has no organization, so of the member pages only Account. */
const OPERATOR_SECTIONS = [
  { to: '/operator/organizations', label: 'Organizations' },
  { to: '/operator/production', label: 'Production' },
  { to: '/operator/batches', label: 'Batches' },
  { to: '/operator/stations', label: 'Stations' },
  { to: '/operator/production-calendar', label: 'Production calendar' },
  { to: '/operator/shop-orders', label: 'Shop orders' },
  { to: '/operator/statistics', label: 'Statistics' },
  { to: '/operator/billing', label: 'Billing' },
  { to: '/operator/operators', label: 'Operators' },
  { to: '/operator/audit-log', label: 'Audit log (platform)' },
  { to: '/account', label: 'Account' },
] as const

/** The guides a member reads from, under /docs (the service's own documentation). */
const MEMBER_GUIDES = [
  { href: '/docs/guides/dashboard', label: 'Dashboard guide' },
  { href: '/docs/guides/api', label: 'API guide' },
  { href: '/docs/guides/webhooks', label: 'Webhooks guide' },
  { href: '/docs/guides/automation', label: 'Automation guide' },
  { href: '/docs/guides/client', label: 'Client and listen' },
] as const

/** An operator's: running the service and its command line. */
const OPERATOR_GUIDES = [
  { href: '/docs/guides/dashboard', label: 'Dashboard guide' },
  { href: '/docs/guides/operations', label: 'Operations guide' },
  { href: '/docs/guides/cli', label: 'Admin CLI' },
] as const

/**
 * The header's Help menu: the API reference and the guides (each in a new
 * tab, so the page stays where it was) and, for members, the request log. A
 * popover of plain links (Tab moves through them, Escape closes it).
 */
function HelpMenu({ operator }: { operator: boolean }) {
  const [opened, setOpened] = useState(false)
  const guides = operator ? OPERATOR_GUIDES : MEMBER_GUIDES
  const close = () => setOpened(false)
  return (
    <Popover opened={opened} onChange={setOpened} position="bottom-end" shadow="md" width={240}>
      <Popover.Target>
        <Button variant="default" size="xs" aria-expanded={opened} onClick={() => setOpened((o) => !o)}>
          Help
        </Button>
      </Popover.Target>
      <Popover.Dropdown>
        <nav aria-label="Help">
          <Stack gap={6}>
            <Text size="xs" c="dimmed">
              Documentation, in a new tab
            </Text>
            {[{ href: '/docs', label: 'API reference' }, ...guides].map((g) => (
              <Anchor key={g.href} href={g.href} target="_blank" rel="noopener" size="sm" onClick={close}>
                {g.label}
              </Anchor>
            ))}
            {!operator && (
              <Anchor component={Link} to="/requests" size="sm" onClick={close}>
                Request log
              </Anchor>
            )}
          </Stack>
        </nav>
      </Popover.Dropdown>
    </Popover>
  )
}

export function Shell() {
  const session = useAccount()
  const signOut = useSignOut()
  const location = useLocation()
  const navigate = useNavigate()
  const [opened, { toggle, close }] = useDisclosure()
  const phone = useStacked()

  if (session.isPending) return <Loader aria-label="Loading" m="xl" />
  if (!session.data) return <Navigate to="/sign-in" replace state={{ from: location.pathname }} />
  const { member, operator } = session.data
  const sections: readonly { to: string; label: string }[] = operator
    ? OPERATOR_SECTIONS
    : SECTIONS.filter(
        (s) =>
          ('owners' in s ? member?.role === 'owner' : true) &&
          ('developers' in s ? member?.role !== 'viewer' : true),
      )
  // Each kind of account is sent to the pages it has: the member pages need an
  // organization, and the console (/operator/...) is for operators only.
  // Pages reached from others rather than from the menu: the console's order page.
  const pages = operator ? [...sections.map((s) => s.to), '/operator/orders/'] : sections.map((s) => s.to)
  if (!pages.some((to) => location.pathname.startsWith(to))) {
    return <Navigate to={sections[0]!.to} replace />
  }

  const organization = member ? member.organization.name : 'Platform operator'
  const who = member ? `${member.email} (${member.role})` : `${operator?.email} (operator)`
  const signOutButton = (
    <Button
      variant="default"
      size="xs"
      loading={signOut.isPending}
      onClick={() => signOut.mutate(undefined, { onSettled: () => navigate('/sign-in') })}
    >
      Sign out
    </Button>
  )

  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="lg"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group wrap="nowrap" style={{ minWidth: 0, flex: 1 }}>
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Menu" />
            <Text fw={700} truncate="end" visibleFrom="sm" style={{ minWidth: 0, flexShrink: 1 }}>
              {organization}
            </Text>
            {member ? <HeaderSearch /> : <ConsoleSearch />}
          </Group>
          <Group wrap="nowrap" gap="sm">
            <HelpMenu operator={!member} />
            <Text size="sm" visibleFrom="sm">
              {who}
            </Text>
            <Group visibleFrom="sm">{signOutButton}</Group>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar
        p="xs"
        aria-label="Dashboard"
        // Folded away on a phone, the menu is hidden, not only moved off the screen: Tab skips it.
        style={
          phone && !opened ? { visibility: 'hidden', transition: 'visibility 0s linear 200ms' } : undefined
        }
      >
        <Stack gap={2} hiddenFrom="sm" mb="xs" px="xs">
          <Text fw={700} style={{ overflowWrap: 'anywhere' }}>
            {organization}
          </Text>
          <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
            {who}
          </Text>
        </Stack>
        {sections.map((s) => {
          // A section's own pages (/operator/production/<id>), not a longer name (/operator/production-calendar).
          const here = location.pathname === s.to || location.pathname.startsWith(`${s.to}/`)
          return (
            <NavLink
              key={s.to}
              component={Link}
              to={s.to}
              label={s.label}
              variant="filled"
              active={here}
              aria-current={here ? 'page' : undefined}
              onClick={close}
            />
          )
        })}
        <Group hiddenFrom="sm" mt="md" px="xs">
          {signOutButton}
        </Group>
      </AppShell.Navbar>
      <AppShell.Main>
        <TestModeBanner />
        <Outlet />
      </AppShell.Main>
    </AppShell>
  )
}
