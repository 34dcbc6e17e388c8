import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyRequest,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify'
import type { Role } from '../db/schema.ts'
import type { ErrorCode } from '../http/errors.ts'
import type { AccountService } from '../modules/accounts/accounts.service.ts'
import {
  type AccountContext,
  actorOf,
  type OperatorContext,
  type RequestMeta,
  type SessionContext,
} from '../modules/accounts/accounts.views.ts'
import type { AuditActor } from '../modules/audit/audit.service.ts'
import { OrgParams } from '../modules/organizations/organizations.console.schemas.ts'
import type { DashboardCookies } from './cookies.ts'

export const DASHBOARD_TAG = 'dashboard'

export interface DashboardDeps {
  accounts: AccountService
  cookies: DashboardCookies
  publicBaseUrl: string
  /** The areas of the dashboard API besides accounts (orders, keys, webhooks...), in this order. */
  areas: ((app: DashboardApp) => void)[]
}

/** The dashboard API's Fastify instance, with TypeBox types. */
export type DashboardApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>

/** An area of the dashboard API (orders, keys, webhooks...): adds its routes, calling the services it names. */
export type DashboardArea<Services> = (app: DashboardApp, services: Services) => void

/** Route configs: who may call a route, and whether it changes something. */
export const open = { auth: 'none' as const }
export const openChange = { auth: 'none' as const, csrf: true, jsonBody: true }
export const viewer = { auth: 'session' as const, role: 'viewer' as const }
export const change = (role: Role, jsonBody = true) => ({
  auth: 'session' as const,
  role,
  csrf: true,
  jsonBody,
})

/** The account's own routes (sessions, password, signing out): members and operators alike. */
export const anyAccount = { ...viewer, accounts: 'any' as const }
export const anyAccountChange = (jsonBody = true) => ({
  ...change('viewer', jsonBody),
  accounts: 'any' as const,
})

/**
 * Operator-only routes (the console, `<feature>.console.routes.ts`): an operator
 * account's session; a member's gets 403 role_required. Their changes go to the
 * platform-wide audit log with the operator as the actor.
 */
export const operatorOnly = { auth: 'session' as const, accounts: 'operator' as const }
export const operatorChange = (jsonBody = true) => ({ ...operatorOnly, csrf: true, jsonBody })

const notFound: ErrorCode[] = ['not_found']

/**
 * The options of an operator's read of one organization's records in the
 * console (`GET /operator/organizations/:org_id/...`): operator-only, 404 for
 * an unknown organization. `schema` is the route's own part (operationId,
 * summary, query, answer); the dashboard's tag and the organization's id are added.
 */
export const organizationRead = <Schema extends object>(schema: Schema) => ({
  config: { ...operatorOnly, errors: notFound },
  schema: { tags: [DASHBOARD_TAG], params: OrgParams, ...schema },
})

export const meta = (request: FastifyRequest): RequestMeta => ({
  address: request.ip,
  userAgent: String(request.headers['user-agent'] ?? ''),
})

/** The session of a route with `auth: 'session'` (its hook has checked it). */
export const ctx = (request: FastifyRequest): SessionContext => request.dashboard!

/** The account of a route with `auth: 'session'`, member or operator. */
export const account = (request: FastifyRequest): AccountContext => request.account!

/** The operator of an operator-only route (its hook has checked it). */
export const operatorCtx = (request: FastifyRequest): OperatorContext => request.account as OperatorContext
/** The operator account as the audit log names who made a change (platform-wide log). */
export const opActor = (request: FastifyRequest): AuditActor => actorOf(operatorCtx(request), meta(request))
/** The signed-in member as the audit log names who made a change. */
export const actor = (request: FastifyRequest): AuditActor => ({
  accountId: ctx(request).member.account_id,
  label: ctx(request).member.email,
  address: request.ip,
})
