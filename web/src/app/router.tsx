import { createBrowserRouter, Navigate } from 'react-router'
import { AccountRoute } from '../features/account/routes/account.tsx'
import { ApiKeysRoute } from '../features/api-keys/routes/api-keys.tsx'
import { AuditLogRoute } from '../features/audit-log/routes/audit-log.tsx'
import { AcceptInvitationRoute } from '../features/auth/routes/accept-invitation.tsx'
import { SignInRoute } from '../features/auth/routes/sign-in.tsx'
import { AutomationRoute } from '../features/automation/routes/automation.tsx'
import { HomeRoute } from '../features/home/routes/home.tsx'
import { MembersRoute } from '../features/members/routes/members.tsx'
import { PlatformAuditLogRoute } from '../features/operator/routes/audit-log.tsx'
import { JobSheetRoute } from '../features/operator/routes/job-sheet.tsx'
import { OperatorsRoute } from '../features/operator/routes/operators.tsx'
import { OperatorOrderRoute } from '../features/operator/routes/order.tsx'
import { OrganizationRoute } from '../features/operator/routes/organization.tsx'
import { OrganizationsRoute } from '../features/operator/routes/organizations.tsx'
import { ProductionRoute } from '../features/operator/routes/production.tsx'
import { ProductionOrderRoute } from '../features/operator/routes/production-order.tsx'
import { ShopOrdersRoute } from '../features/operator/routes/shop-orders.tsx'
import { StatisticsRoute } from '../features/operator/routes/statistics.tsx'
import { OrderRoute } from '../features/orders/routes/order.tsx'
import { OrdersRoute } from '../features/orders/routes/orders.tsx'
import { ProductsRoute } from '../features/products/routes/products.tsx'
import { BillingRoute } from '../features/usage/routes/billing.tsx'
import { UsageRoute } from '../features/usage/routes/usage.tsx'
import { EndpointRoute } from '../features/webhooks/routes/endpoint.tsx'
import { WebhooksRoute } from '../features/webhooks/routes/webhooks.tsx'
import { Shell } from './shell.tsx'

export const router = createBrowserRouter(
  [
    { path: '/sign-in', element: <SignInRoute /> },
    { path: '/invitation', element: <AcceptInvitationRoute /> },
    // Printed at the workbench: outside the shell, so that only the sheet prints.
    { path: '/operator/production/:productionOrderId/job-sheet', element: <JobSheetRoute /> },
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
        { path: 'automation', element: <AutomationRoute /> },
        { path: 'usage', element: <UsageRoute /> },
        { path: 'audit-log', element: <AuditLogRoute /> },
        { path: 'account', element: <AccountRoute /> },
        // The operator's console (the shell sends members away).
        { path: 'operator/organizations', element: <OrganizationsRoute /> },
        { path: 'operator/organizations/:orgId', element: <OrganizationRoute /> },
        { path: 'operator/production', element: <ProductionRoute /> },
        { path: 'operator/production/:productionOrderId', element: <ProductionOrderRoute /> },
        { path: 'operator/orders/:orderId', element: <OperatorOrderRoute /> },
        { path: 'operator/shop-orders', element: <ShopOrdersRoute /> },
        { path: 'operator/statistics', element: <StatisticsRoute /> },
        { path: 'operator/billing', element: <BillingRoute /> },
        { path: 'operator/operators', element: <OperatorsRoute /> },
        { path: 'operator/audit-log', element: <PlatformAuditLogRoute /> },
        { path: '*', element: <Navigate to="/home" replace /> },
      ],
    },
  ],
  { basename: '/dashboard' },
)
