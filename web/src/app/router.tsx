import { createBrowserRouter, Navigate } from 'react-router'
import { AccountRoute } from '../features/account/routes/account.tsx'
import { AuditLogRoute } from '../features/audit-log/routes/audit-log.tsx'
import { AcceptInvitationRoute } from '../features/auth/routes/accept-invitation.tsx'
import { SignInRoute } from '../features/auth/routes/sign-in.tsx'
import { HomeRoute } from '../features/home/routes/home.tsx'
import { MembersRoute } from '../features/members/routes/members.tsx'
import { OrderRoute } from '../features/orders/routes/order.tsx'
import { OrdersRoute } from '../features/orders/routes/orders.tsx'
import { ProductsRoute } from '../features/products/routes/products.tsx'
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
