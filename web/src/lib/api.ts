/**
 * The one client of the dashboard API (/dashboard/api): openapi-fetch over the
 * types `npm run openapi` makes from the service's own document
 * (/dashboard/api/openapi.json), so a wrong path, parameter or body fails the
 * type check. Every state-changing call carries the CSRF token that
 * GET /session handed out (the browser adds Origin and the cookies).
 */
import createClient from 'openapi-fetch'
import type { PathsWithMethod, RequestBodyJSON, SuccessResponseJSON } from 'openapi-typescript-helpers'
import type { paths } from '../generated/dashboard-api.ts'

export type { paths }

/** One problem of a refused input, naming its field (`conditions.2.operator`). */
export interface FieldError {
  /** The problem's code (`too_small`); absent on problems the dashboard makes itself. */
  code?: string
  field?: string
  message: string
}

export class ApiError extends Error {
  readonly status: number
  readonly code: string
  /** validation_failed: each problem with the field it names, for forms that show them beside the field. */
  readonly errors: FieldError[]
  /** The answer's X-Request-Id, for support (the request log finds it). */
  readonly requestId: string | undefined
  /** The field a refusal other than validation_failed is about (a refused URL's `url`). */
  readonly field: string | undefined
  constructor(
    status: number,
    code: string,
    message: string,
    errors: FieldError[] = [],
    details: { requestId?: string | undefined; field?: string | undefined } = {},
  ) {
    super(message)
    this.status = status
    this.code = code
    this.errors = errors
    this.requestId = details.requestId
    this.field = details.field
  }
}

let csrfToken = ''
export function setCsrfToken(token: string): void {
  csrfToken = token
}

export const client = createClient<paths>({
  baseUrl: '/dashboard/api',
  credentials: 'same-origin',
  headers: { accept: 'application/json' },
})

client.use({
  async onRequest({ request }) {
    if (request.method === 'GET') return
    // Pages that change something before asking for the session (the invitation) fetch the token first.
    if (!csrfToken) csrfToken = (await call(client.GET('/session'))).data.csrf_token
    request.headers.set('x-csrf-token', csrfToken)
    return request
  },
  onError: () =>
    new ApiError(0, 'network', 'The service cannot be reached. Check your connection and try again.'),
})

type ErrorBody = { error?: { code?: string; message?: string; field?: string; errors?: FieldError[] } }

/** The answer of a call that succeeded; otherwise an ApiError in the service's words. */
export async function call<T>(
  request: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  const { data, error, response } = await request
  if (response.ok) return data as T
  const body = (typeof error === 'object' ? error : undefined) as ErrorBody | undefined
  const details = body?.error?.errors?.map((e) => e.message).join(' ')
  throw new ApiError(
    response.status,
    body?.error?.code ?? 'unknown',
    [body?.error?.message ?? `The service answered ${response.status}.`, details].filter(Boolean).join(' '),
    body?.error?.errors ?? [],
    { requestId: response.headers.get('x-request-id') ?? undefined, field: body?.error?.field },
  )
}

/**
 * The JSON body of a path's successful answer and the JSON body a path takes,
 * read from the document with openapi-typescript-helpers, the types
 * openapi-fetch itself reads it with (and packages/client too). A path that
 * lacks the method fails the check.
 */
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete'
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>
export type Answer<P extends PathsWithMethod<paths, M>, M extends Method = 'get'> = SuccessResponseJSON<
  Operation<P, M>
>
export type Input<P extends PathsWithMethod<paths, M>, M extends Method> = RequestBodyJSON<Operation<P, M>>
/** A path's query parameters. */
export type Query<P extends keyof paths, M extends Method = 'get'> = paths[P][M] extends {
  parameters: { query?: infer Q }
}
  ? NonNullable<Q>
  : never

/** The record types the pages show, named as the document shapes them. */
export type SessionState = Answer<'/session'>['data']
export type SignedIn = Answer<'/sign-in', 'post'>['data']
export type InvitationPreview = Answer<'/invitations/lookup', 'post'>['data']
export type Session = Answer<'/account/sessions'>['data'][number]
export type Member = Answer<'/members'>['data'][number]
export type Invitation = Answer<'/invitations'>['data'][number]
export type AuditPage = Answer<'/audit-log'>
export type AuditEntry = AuditPage['data'][number]
export type ApiKey = Answer<'/api-keys'>['data'][number]
export type CreateApiKeyBody = Input<'/api-keys', 'post'>
export type DashboardOrder = Answer<'/orders/{order_id}'>['data']['order']
export type TimelineEvent = Answer<'/orders/{order_id}/timeline'>['data'][number]
export type Product = Answer<'/products'>['data'][number]
export type OrderPreflight = Answer<'/orders/{order_id}/preflight'>['data']
export type UnmatchedSku = Answer<'/products/unmatched-skus'>['data'][number]
export type Endpoint = Answer<'/webhook-endpoints'>['data'][number]
export type DeliveryLog = Answer<'/webhook-deliveries'>
export type Delivery = Answer<'/webhook-deliveries/{delivery_id}'>['data']['delivery']
export type DeliveryAttempt = Answer<'/webhook-deliveries/{delivery_id}'>['data']['attempts'][number]
export type Replay = Answer<'/webhook-endpoints/{endpoint_id}/replay', 'post'>['data']['replay']
export type Operator = Answer<'/operator/operators'>['data'][number]
export type OperatorInvitation = Answer<'/operator/operators/invitations'>['data'][number]
export type OperatorAuditPage = Answer<'/operator/audit-log'>
export type AutomationRule = Answer<'/automation/rules'>['data']['rules'][number]
export type AutomationCatalog = Answer<'/automation/fields'>['data']
export type DryRun = Answer<'/automation/dry-run', 'post'>['data']

/**
 * The keys of a record that has one for each member of a union the document
 * names (scopes, event types), in the record's order: a member the service adds
 * or drops fails the type check here once `npm run openapi` has run.
 */
export const keysOf = <K extends string>(record: Record<K, unknown>): K[] => Object.keys(record) as K[]

/** Query values as a form keeps them: empty fields are left out. */
export function filled<T extends Record<string, string | number | boolean | undefined>>(
  values: T,
): Partial<T> {
  return Object.fromEntries(
    Object.entries(values).filter(([, v]) => v !== '' && v !== undefined),
  ) as Partial<T>
}

/** A timestamp to the second with its zone; pages show times through components/time.tsx. */
export { exactTime as formatTime } from './format.ts'
