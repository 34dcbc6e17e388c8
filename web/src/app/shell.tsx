import { AppShell, Burger, Button, Group, Loader, NavLink, Stack, Text } from '@mantine/core'
import { useDisclosure } from '@mantine/hooks'
import { Link, Navigate, Outlet, useLocation, useNavigate } from 'react-router'
import { useStacked } from '../components/data-table.tsx'
import { ConsoleSearch, HeaderSearch } from '../components/header-search.tsx'
import { TestModeBanner } from '../components/test-mode-banner.tsx'
import { useAccount, useSignOut } from '../features/auth/api/session.ts'

/** The sections of an organization's dashboard (members); `owners` ones only for owners. */
const SECTIONS = [
  { to: '/home', label: 'Home' },
  { to: '/orders', label: 'Orders' },
  { to: '/api-keys', label: 'API keys' },
  { to: '/webhooks', label: 'Webhooks' },
  { to: '/requests', label: 'Requests' },
  { to: '/products', label: 'Products' },
  { to: '/automation', label: 'Automation' },
  { to: '/usage', label: 'Usage', owners: true },
  { to: '/members', label: 'Members' },
  { to: '/audit-log', label: 'Audit log' },
  { to: '/account', label: 'Account' },
] as const

/** The operator's console: an operator has no organization, so of the member pages only Account. */
const OPERATOR_SECTIONS = [
  { to: '/operator/organizations', label: 'Organizations' },
  { to: '/operator/production', label: 'Production' },
  { to: '/operator/shop-orders', label: 'Shop orders' },
  { to: '/operator/statistics', label: 'Statistics' },
  { to: '/operator/billing', label: 'Billing' },
  { to: '/operator/operators', label: 'Operators' },
  { to: '/operator/audit-log', label: 'Audit log (platform)' },
  { to: '/account', label: 'Account' },
] as const

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
    : SECTIONS.filter((s) => !('owners' in s) || member?.role === 'owner')
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
          <Group wrap="nowrap" visibleFrom="sm">
            <Text size="sm">{who}</Text>
            {signOutButton}
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
        {sections.map((s) => (
          <NavLink
            key={s.to}
            component={Link}
            to={s.to}
            label={s.label}
            variant="filled"
            active={location.pathname.startsWith(s.to)}
            aria-current={location.pathname.startsWith(s.to) ? 'page' : undefined}
            onClick={close}
          />
        ))}
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
