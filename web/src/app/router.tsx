import { createBrowserRouter, Navigate } from 'react-router'
import { AccountRoute } from '../features/account/routes/account.tsx'
import { ApiKeysRoute } from '../features/api-keys/routes/api-keys.tsx'
import { AuditLogRoute } from '../features/audit-log/routes/audit-log.tsx'
import { AcceptInvitationRoute } from '../features/auth/routes/accept-invitation.tsx'
import { SignInRoute } from '../features/auth/routes/sign-in.tsx'
import { HomeRoute } from '../features/home/routes/home.tsx'
import { MembersRoute } from '../features/members/routes/members.tsx'
import { OrderRoute } from '../features/orders/routes/order.tsx'
import { OrdersRoute } from '../features/orders/routes/orders.tsx'
import { ProductsRoute } from '../features/products/routes/products.tsx'
import { EndpointRoute } from '../features/webhooks/routes/endpoint.tsx'
import { WebhooksRoute } from '../features/webhooks/routes/webhooks.tsx'
import { Shell } from './shell.tsx'

export const router = createBrowserRouter(
  [
    { path: '/sign-in', element: <SignInRoute /> },
    { path: '/invitation', element: <AcceptInvitationRoute /> },
    {
      path: '/',
      element: <Shell />,
      children: [
        { index: true, element: <Navigate to="/home" replace /> },
        { path: 'home', element: <HomeRoute /> },
        { path: 'orders', element: <OrdersRoute /> },
        { path: 'api-keys', element: <ApiKeysRoute /> },
        { path: 'webhooks', element: <WebhooksRoute /> },
        { path: 'webhooks/:endpointId', element: <EndpointRoute /> },
        { path: 'members', element: <MembersRoute /> },
        { path: 'orders/:order_id', element: <OrderRoute /> },
        { path: 'products', element: <ProductsRoute /> },
        { path: 'audit-log', element: <AuditLogRoute /> },
        { path: 'account', element: <AccountRoute /> },
        { path: '*', element: <Navigate to="/home" replace /> },
      ],
    },
  ],
  { basename: '/dashboard' },
)
