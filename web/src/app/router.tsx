import { Loader } from '@mantine/core'
import type { ComponentType } from 'react'
import { createBrowserRouter, Navigate, type RouteObject } from 'react-router'
import { Shell } from './shell.tsx'

/**
 * A page loaded when first opened: each page is a chunk of its own, so
 * opening one parses the shell and that page, not every page and library
 * (the charts, the QR code, the console) of the dashboard.
 */
function page<K extends string>(load: () => Promise<Record<K, ComponentType>>, name: K) {
  return async () => ({ Component: (await load())[name] })
}

/** What a page shows while its chunk loads on a full page load (a deep link, a reload). */
function PageLoading() {
  return <Loader aria-label="Loading the page" m="md" />
}

/**
 * Every lazy route with PageLoading as its HydrateFallback: without one, React
 * Router renders nothing and warns on each full page load.
 */
function withHydrateFallback(routes: RouteObject[]): RouteObject[] {
  return routes.map((route) =>
    route.index
      ? route
      : {
          ...route,
          ...(route.lazy ? { HydrateFallback: PageLoading } : {}),
          ...(route.children ? { children: withHydrateFallback(route.children) } : {}),
        },
  )
}

export const router = createBrowserRouter(
  withHydrateFallback([
    { path: '/sign-in', lazy: page(() => import('../features/auth/routes/sign-in.tsx'), 'SignInRoute') },
    {
      path: '/invitation',
      lazy: page(() => import('../features/auth/routes/accept-invitation.tsx'), 'AcceptInvitationRoute'),
    },
    {
      path: '/password-reset',
      lazy: page(() => import('../features/auth/routes/password-reset.tsx'), 'PasswordResetRoute'),
    },
    // Printed at the workbench: outside the shell, so that only the sheet prints.
    {
      path: '/operator/production/:productionOrderId/job-sheet',
      lazy: page(() => import('../features/production/console/routes/job-sheet.tsx'), 'JobSheetRoute'),
    },
    {
      path: '/operator/batches/:batchId/sheet',
      lazy: page(() => import('../features/production/console/routes/batch-sheet.tsx'), 'BatchSheetRoute'),
    },
    // A station's page fills a tablet's screen: scan field, what happened, large actions.
    {
      path: '/operator/stations/:stationId',
      lazy: page(() => import('../features/production/console/stations/station.tsx'), 'StationRoute'),
    },
    {
      path: '/',
      element: <Shell />,
      children: [
        { index: true, element: <Navigate to="/home" replace /> },
        { path: 'home', lazy: page(() => import('../features/home/routes/home.tsx'), 'HomeRoute') },
        { path: 'orders', lazy: page(() => import('../features/orders/routes/orders.tsx'), 'OrdersRoute') },
        {
          path: 'api-keys',
          lazy: page(() => import('../features/api-keys/routes/api-keys.tsx'), 'ApiKeysRoute'),
        },
        {
          path: 'webhooks',
          lazy: page(() => import('../features/webhooks/routes/webhooks.tsx'), 'WebhooksRoute'),
        },
        {
          path: 'webhooks/:endpointId',
          lazy: page(() => import('../features/webhooks/routes/endpoint.tsx'), 'EndpointRoute'),
        },
        {
          path: 'requests',
          lazy: page(() => import('../features/requests/routes/requests.tsx'), 'RequestsRoute'),
        },
        {
          path: 'requests/:request_line_id',
          lazy: page(() => import('../features/requests/routes/request.tsx'), 'RequestRoute'),
        },
        {
          path: 'members',
          lazy: page(() => import('../features/members/routes/members.tsx'), 'MembersRoute'),
        },
        {
          path: 'orders/:order_id',
          lazy: page(() => import('../features/orders/routes/order.tsx'), 'OrderRoute'),
        },
        {
          path: 'products',
          lazy: page(() => import('../features/products/routes/products.tsx'), 'ProductsRoute'),
        },
        {
          path: 'automation',
          lazy: page(() => import('../features/automation/routes/automation.tsx'), 'AutomationRoute'),
        },
        { path: 'usage', lazy: page(() => import('../features/usage/routes/usage.tsx'), 'UsageRoute') },
        {
          path: 'personal-data',
          lazy: page(() => import('../features/personal-data/routes/personal-data.tsx'), 'PersonalDataRoute'),
        },
        {
          path: 'audit-log',
          lazy: page(() => import('../features/audit-log/routes/audit-log.tsx'), 'AuditLogRoute'),
        },
        {
          path: 'account',
          lazy: page(() => import('../features/account/routes/account.tsx'), 'AccountRoute'),
        },
        // The operator's console (the shell sends members away).
        {
          path: 'operator/organizations',
          lazy: page(
            () => import('../features/organizations/console/routes/organizations.tsx'),
            'OrganizationsRoute',
          ),
        },
        {
          path: 'operator/organizations/:orgId',
          lazy: page(
            () => import('../features/organizations/console/routes/organization.tsx'),
            'OrganizationRoute',
          ),
        },
        {
          path: 'operator/organizations/:orgId/personal-data',
          lazy: page(
            () => import('../features/personal-data/routes/organization-personal-data.tsx'),
            'OrganizationPersonalDataRoute',
          ),
        },
        {
          path: 'operator/production',
          lazy: page(
            () => import('../features/production/console/routes/production-board.tsx'),
            'ProductionBoardRoute',
          ),
        },
        {
          path: 'operator/production/:productionOrderId',
          lazy: page(
            () => import('../features/production/console/routes/production-order.tsx'),
            'ProductionOrderRoute',
          ),
        },
        {
          path: 'operator/batches',
          lazy: page(() => import('../features/production/console/routes/batches.tsx'), 'BatchesRoute'),
        },
        {
          path: 'operator/batches/:batchId',
          lazy: page(() => import('../features/production/console/routes/batch.tsx'), 'BatchRoute'),
        },
        {
          path: 'operator/stations',
          lazy: page(() => import('../features/production/console/stations/stations.tsx'), 'StationsRoute'),
        },
        {
          path: 'operator/production-calendar',
          lazy: page(
            () => import('../features/production/console/routes/production-calendar.tsx'),
            'ProductionCalendarRoute',
          ),
        },
        {
          path: 'operator/orders/:orderId',
          lazy: page(() => import('../features/orders/console/routes/order.tsx'), 'OperatorOrderRoute'),
        },
        {
          path: 'operator/shop-orders',
          lazy: page(() => import('../features/orders/console/routes/shop-orders.tsx'), 'ShopOrdersRoute'),
        },
        {
          path: 'operator/statistics',
          lazy: page(
            () => import('../features/organizations/console/routes/statistics.tsx'),
            'StatisticsRoute',
          ),
        },
        {
          path: 'operator/billing',
          lazy: page(() => import('../features/usage/console/routes/billing.tsx'), 'BillingRoute'),
        },
        {
          path: 'operator/operators',
          lazy: page(() => import('../features/members/console/routes/operators.tsx'), 'OperatorsRoute'),
        },
        {
          path: 'operator/audit-log',
          lazy: page(
            () => import('../features/audit-log/console/routes/audit-log.tsx'),
            'PlatformAuditLogRoute',
          ),
        },
        { path: '*', element: <Navigate to="/home" replace /> },
      ],
    },
  ]),
  { basename: '/dashboard' },
)
