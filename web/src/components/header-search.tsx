import { Anchor, Popover, Stack, Text, TextInput, VisuallyHidden } from '@mantine/core'
import { useDebouncedValue } from '@mantine/hooks'
import { useQuery } from '@tanstack/react-query'
import { type KeyboardEvent, type ReactNode, useRef, useState } from 'react'
import { Link } from 'react-router'
import { call, client } from '../lib/api.ts'

interface SearchBoxProps<T> {
  /** What the box finds, in words: its label and placeholder. */
  label: string
  placeholder: string
  queryKey: string
  find: (q: string) => Promise<T>
  /** The groups of results for the text `q`, each a list of links that call `close`; none when nothing matched. */
  results: (data: T, close: () => void, q: string) => ReactNode[]
}

/**
 * A search box in the header: results grouped, each a link. Arrow down moves
 * into the results, Escape closes them.
 */
function SearchBox<T>({ label, placeholder, queryKey, find, results: groups }: SearchBoxProps<T>) {
  const [text, setText] = useState('')
  const [open, setOpen] = useState(false)
  const [q] = useDebouncedValue(text.trim(), 250)
  const results = useRef<HTMLDivElement>(null)
  const found = useQuery({ queryKey: [queryKey, q], queryFn: () => find(q), enabled: q.length >= 2 })
  const data = found.data
  const close = () => {
    setOpen(false)
    setText('')
  }
  const links = () => [...(results.current?.querySelectorAll<HTMLAnchorElement>('a') ?? [])]
  const onKey = (event: KeyboardEvent) => {
    if (event.key === 'Escape') setOpen(false)
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return
    const all = links()
    if (all.length === 0) return
    event.preventDefault()
    const at = all.indexOf(document.activeElement as HTMLAnchorElement)
    const next = event.key === 'ArrowDown' ? Math.min(at + 1, all.length - 1) : at - 1
    if (next < 0) document.getElementById('header-search')?.focus()
    else all[next]!.focus()
  }
  const shown = data ? groups(data, close, q).filter(Boolean) : []
  return (
    <Popover
      opened={open && q.length >= 2}
      position="bottom-start"
      width="min(380px, calc(100vw - 16px))"
      shadow="md"
      trapFocus={false}
    >
      <Popover.Target>
        <search aria-label="Find anything" onKeyDown={onKey} style={{ flex: 1, maxWidth: 300 }}>
          <VisuallyHidden>
            <label htmlFor="header-search">{label}</label>
          </VisuallyHidden>
          <TextInput
            id="header-search"
            size="xs"
            w={{ base: '100%', sm: 300 }}
            placeholder={placeholder}
            value={text}
            onChange={(e) => {
              setText(e.currentTarget.value)
              setOpen(true)
            }}
            onFocus={() => setOpen(true)}
            autoComplete="off"
          />
        </search>
      </Popover.Target>
      <Popover.Dropdown onKeyDown={onKey}>
        <div ref={results} aria-live="polite">
          {found.isFetching && !data && <Text size="sm">Searching…</Text>}
          {data && shown.length === 0 && <Text size="sm">Nothing found for “{q}”.</Text>}
          {shown.length > 0 && <Stack gap="sm">{shown}</Stack>}
        </div>
      </Popover.Dropdown>
    </Popover>
  )
}

/**
 * The member's search: orders (external id, id, customer email or name),
 * webhook endpoints (URL), API keys (prefix), requests (a whole X-Request-Id).
 */
export function HeaderSearch() {
  return (
    <SearchBox
      label="Find an order, endpoint, key or request id"
      placeholder="Find an order, key, request id"
      queryKey="search"
      find={async (q) => (await call(client.GET('/search', { params: { query: { q } } }))).data}
      results={(data, close, q) => [
        data.orders.length > 0 && (
          <Group key="orders" title="Orders">
            {data.orders.map((o) => (
              <Anchor key={o.id} component={Link} to={`/orders/${o.id}`} onClick={close} size="sm">
                {o.external_order_id} · {o.customer_name}
                {o.customer_email ? ` (${o.customer_email})` : ''} · {o.environment} · {o.status}
              </Anchor>
            ))}
            {/* The first few only: the Orders list, filtered the same way, has them all (one environment at a time). */}
            {(['live', 'test'] as const)
              .filter((environment) => data.orders.some((o) => o.environment === environment))
              .map((environment) => (
                <Anchor
                  key={`all-${environment}`}
                  component={Link}
                  to={`/orders?${new URLSearchParams({ environment, q })}`}
                  onClick={close}
                  size="sm"
                  fw={600}
                >
                  See all {environment} orders matching “{q}”
                </Anchor>
              ))}
          </Group>
        ),
        data.webhook_endpoints.length > 0 && (
          <Group key="endpoints" title="Webhook endpoints">
            {data.webhook_endpoints.map((e) => (
              <Anchor key={e.id} component={Link} to={`/webhooks/${e.id}`} onClick={close} size="sm">
                {e.url} · {e.environment}
              </Anchor>
            ))}
          </Group>
        ),
        data.api_keys.length > 0 && (
          <Group key="keys" title="API keys">
            {data.api_keys.map((k) => (
              <Anchor key={k.id} component={Link} to="/api-keys" onClick={close} size="sm">
                {k.key_prefix}… · {k.environment}
                {k.name ? ` · ${k.name}` : ''}
                {k.revoked ? ' · revoked' : ''}
              </Anchor>
            ))}
          </Group>
        ),
        data.requests.length > 0 && (
          <Group key="requests" title="Requests">
            {data.requests.map((r) => (
              <Anchor
                key={r.id}
                component={Link}
                to={`/requests/${r.id}?environment=${r.environment}`}
                onClick={close}
                size="sm"
              >
                {r.method} {r.path} · {r.status} · {r.environment}
              </Anchor>
            ))}
          </Group>
        ),
      ]}
    />
  )
}

/**
 * The console's search, across organizations: organizations (name), orders
 * (id, external id, customer email or name), a production order (id),
 * webhook endpoints (URL) and API keys (prefix), the last two opening their
 * organization.
 */
export function ConsoleSearch() {
  return (
    <SearchBox
      label="Find an organization, order, production order, endpoint or key"
      placeholder="Find an organization, order, key"
      queryKey="operator-search"
      find={async (q) => (await call(client.GET('/operator/search', { params: { query: { q } } }))).data}
      results={(data, close) => [
        data.organizations.length > 0 && (
          <Group key="organizations" title="Organizations">
            {data.organizations.map((o) => (
              <Anchor
                key={o.id}
                component={Link}
                to={`/operator/organizations/${o.id}`}
                onClick={close}
                size="sm"
              >
                {o.name}
              </Anchor>
            ))}
          </Group>
        ),
        data.orders.length > 0 && (
          <Group key="orders" title="Orders">
            {data.orders.map((o) => (
              <Anchor key={o.id} component={Link} to={`/operator/orders/${o.id}`} onClick={close} size="sm">
                {o.external_order_id} · {o.organization_name} · {o.customer_name}
                {o.customer_email ? ` (${o.customer_email})` : ''} · {o.environment} · {o.status}
              </Anchor>
            ))}
          </Group>
        ),
        data.production_orders.length > 0 && (
          <Group key="production" title="Production orders">
            {data.production_orders.map((p) => (
              <Anchor
                key={p.id}
                component={Link}
                to={`/operator/production/${p.id}`}
                onClick={close}
                size="sm"
              >
                {p.external_order_id} · {p.organization_name} · {p.status}
              </Anchor>
            ))}
          </Group>
        ),
        data.webhook_endpoints.length > 0 && (
          <Group key="endpoints" title="Webhook endpoints">
            {data.webhook_endpoints.map((e) => (
              <Anchor
                key={e.id}
                component={Link}
                to={`/operator/organizations/${e.organization_id}`}
                onClick={close}
                size="sm"
              >
                {e.url} · {e.organization_name} · {e.environment}
              </Anchor>
            ))}
          </Group>
        ),
        data.api_keys.length > 0 && (
          <Group key="keys" title="API keys">
            {data.api_keys.map((k) => (
              <Anchor
                key={k.id}
                component={Link}
                to={`/operator/organizations/${k.organization_id}`}
                onClick={close}
                size="sm"
              >
                {k.key_prefix}… · {k.organization_name} · {k.environment}
                {k.revoked ? ' · revoked' : ''}
              </Anchor>
            ))}
          </Group>
        ),
      ]}
    />
  )
}

function Group({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section aria-label={title}>
      <Text size="xs" fw={700} c="dimmed" tt="uppercase">
        {title}
      </Text>
      <Stack gap={2}>{children}</Stack>
    </section>
  )
}
