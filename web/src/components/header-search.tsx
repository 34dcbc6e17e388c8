import { Anchor, Popover, Stack, Text, TextInput, VisuallyHidden } from '@mantine/core'
import { useDebouncedValue } from '@mantine/hooks'
import { useQuery } from '@tanstack/react-query'
import { type KeyboardEvent, type ReactNode, useRef, useState } from 'react'
import { Link } from 'react-router'
import { call, client } from '../lib/api.ts'

/**
 * The header's search box: orders (external id, id, customer email or name),
 * webhook endpoints (URL) and API keys (prefix), grouped, each a link. Arrow
 * down moves into the results, Escape closes them.
 */
export function HeaderSearch() {
  const [text, setText] = useState('')
  const [open, setOpen] = useState(false)
  const [q] = useDebouncedValue(text.trim(), 250)
  const results = useRef<HTMLDivElement>(null)
  const found = useQuery({
    queryKey: ['search', q],
    queryFn: () => call(client.GET('/search', { params: { query: { q } } })),
    enabled: q.length >= 2,
  })
  const data = found.data?.data
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
  const empty = data && data.orders.length + data.webhook_endpoints.length + data.api_keys.length === 0
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
            <label htmlFor="header-search">Find an order, endpoint or key</label>
          </VisuallyHidden>
          <TextInput
            id="header-search"
            size="xs"
            w={{ base: '100%', sm: 300 }}
            placeholder="Find an order, endpoint, key"
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
          {empty && <Text size="sm">Nothing found for “{q}”.</Text>}
          {data && (
            <Stack gap="sm">
              {data.orders.length > 0 && (
                <Group title="Orders">
                  {data.orders.map((o) => (
                    <Anchor key={o.id} component={Link} to={`/orders/${o.id}`} onClick={close} size="sm">
                      {o.external_order_id} · {o.customer_name}
                      {o.customer_email ? ` (${o.customer_email})` : ''} · {o.environment} · {o.status}
                    </Anchor>
                  ))}
                </Group>
              )}
              {data.webhook_endpoints.length > 0 && (
                <Group title="Webhook endpoints">
                  {data.webhook_endpoints.map((e) => (
                    <Anchor key={e.id} component={Link} to={`/webhooks/${e.id}`} onClick={close} size="sm">
                      {e.url} · {e.environment}
                    </Anchor>
                  ))}
                </Group>
              )}
              {data.api_keys.length > 0 && (
                <Group title="API keys">
                  {data.api_keys.map((k) => (
                    <Anchor key={k.id} component={Link} to="/api-keys" onClick={close} size="sm">
                      {k.key_prefix}… · {k.environment}
                      {k.name ? ` · ${k.name}` : ''}
                      {k.revoked ? ' · revoked' : ''}
                    </Anchor>
                  ))}
                </Group>
              )}
            </Stack>
          )}
        </div>
      </Popover.Dropdown>
    </Popover>
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
