import { Anchor, Text } from '@mantine/core'
import { Link } from 'react-router'
import { Time } from '../../../components/time.tsx'
import type { Env } from '../../../lib/environment.ts'
import { requestHref, useOrderRequests } from '../api/requests.ts'

/**
 * On an order's page, the POST /v1/orders request that created it (and how
 * many identical repeats followed); nothing for shop orders, or when the
 * log no longer holds it.
 */
export function CreatedByRequest({ orderId, env, enabled }: { orderId: string; env: Env; enabled: boolean }) {
  const found = useOrderRequests(env, orderId, enabled)
  const lines = found.data ?? []
  const created = lines.find((l) => l.status === 201)
  if (!enabled || !created) return null
  const repeats = lines.length - 1
  return (
    <Text size="sm">
      Created by request{' '}
      <Anchor component={Link} to={requestHref(created)}>
        {created.method} {created.path}
      </Anchor>{' '}
      (<Time value={created.created_at} exact />)
      {repeats > 0 && (
        <>
          {', then '}
          <Anchor
            component={Link}
            to={`/requests?environment=${env}&order_id=${encodeURIComponent(orderId)}`}
          >
            {repeats === 1 ? '1 identical repeat' : `${repeats} identical repeats`}
          </Anchor>
        </>
      )}
      .
    </Text>
  )
}
