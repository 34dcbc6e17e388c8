import type { DashboardCookies } from '../../dashboard/cookies.ts'
import type { Surfaces } from '../feature.ts'
import { accountsAdminRoutes } from './accounts.admin.routes.ts'
import { accountsConsoleRoutes } from './accounts.console.routes.ts'
import { accountsDashboardRoutes } from './accounts.dashboard.routes.ts'
import type { AccountService } from './accounts.service.ts'
import { membersDashboardRoutes } from './members/members.dashboard.routes.ts'
import { operatorsConsoleRoutes } from './operators/operators.console.routes.ts'

export { type AccountService, createAccountService } from './accounts.service.ts'

/** Sign-in and sessions, members and their invitations (members/), operators (operators/). */
export function accountsSurfaces(s: { accounts: AccountService; cookies: DashboardCookies }): Surfaces {
  return {
    admin: [accountsAdminRoutes(s)],
    dashboard: [(app) => accountsDashboardRoutes(app, s), (app) => membersDashboardRoutes(app, s)],
    console: [(app) => accountsConsoleRoutes(app, s), (app) => operatorsConsoleRoutes(app, s)],
  }
}
