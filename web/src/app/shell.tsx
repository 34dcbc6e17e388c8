import { AppShell, Burger, Button, Group, Loader, NavLink, Text } from '@mantine/core'
import { useDisclosure } from '@mantine/hooks'
import { Link, Navigate, Outlet, useLocation, useNavigate } from 'react-router'
import { useAccount, useSignOut } from '../features/auth/api/session.ts'

/**
 * The sections of the dashboard that exist. Later pages (API
 * keys, Webhooks, Products, and the operator's console) add entries here.
 */
const SECTIONS = [
  { to: '/home', label: 'Home' },
  { to: '/orders', label: 'Orders' },
  { to: '/api-keys', label: 'API keys' },
  { to: '/webhooks', label: 'Webhooks' },
  { to: '/products', label: 'Products' },
  { to: '/members', label: 'Members' },
  { to: '/audit-log', label: 'Audit log' },
  { to: '/account', label: 'Account' },
] as const

/** An operator has no organization: of the member pages, only Account (the console's pages come later). */
const OPERATOR_SECTIONS = [{ to: '/account', label: 'Account' }] as const

export function Shell() {
  const session = useAccount()
  const signOut = useSignOut()
  const location = useLocation()
  const navigate = useNavigate()
  const [opened, { toggle, close }] = useDisclosure()

  if (session.isPending) return <Loader aria-label="Loading" m="xl" />
  if (!session.data) return <Navigate to="/sign-in" replace state={{ from: location.pathname }} />
  const { member, operator } = session.data
  const sections = operator ? OPERATOR_SECTIONS : SECTIONS
  // The member pages need an organization: an operator is sent to the pages it has.
  if (operator && !sections.some((s) => location.pathname.startsWith(s.to))) {
    return <Navigate to={sections[0].to} replace />
  }

  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="lg"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Menu" />
            <Text fw={700}>{member ? member.organization.name : 'Platform operator'}</Text>
          </Group>
          <Group wrap="nowrap">
            <Text size="sm" visibleFrom="sm">
              {member ? `${member.email} (${member.role})` : `${operator?.email} (operator)`}
            </Text>
            <Button
              variant="default"
              size="xs"
              loading={signOut.isPending}
              onClick={() => signOut.mutate(undefined, { onSettled: () => navigate('/sign-in') })}
            >
              Sign out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Dashboard">
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
      </AppShell.Navbar>
      <AppShell.Main>
        <Outlet />
      </AppShell.Main>
    </AppShell>
  )
}
