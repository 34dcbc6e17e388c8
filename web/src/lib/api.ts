/**
 * The one client of the dashboard API (/dashboard/api). Types come from the
 * service's own schemas; every state-changing call carries the CSRF token
 * that GET /session handed out (the browser adds Origin and the cookies).
 */
export type {
  AuditEntry,
  AuditPage,
  Invitation,
  InvitationCreated,
  InvitationPreview,
  Member,
  Operator,
  OperatorAuditPage,
  OperatorInvitation,
  OperatorInvitationCreated,
  Session,
  SessionState,
  SignedIn,
} from '../../../src/modules/accounts/accounts.dashboard.schemas.ts'
export type {
  ApiKey,
  ApiKeyCreated,
  CreateApiKeyBody,
} from '../../../src/modules/auth/api-keys.dashboard.schemas.ts'
export type { DashboardOrder, TimelineEvent } from '../../../src/modules/orders/order.dashboard.schemas.ts'
export type {
  Product,
  ProductCreated,
  UnmatchedSku,
} from '../../../src/modules/products/products.dashboard.schemas.ts'
export type {
  Delivery,
  DeliveryAttempt,
  DeliveryLog,
  Endpoint,
  Replay,
} from '../../../src/modules/webhooks/webhooks.dashboard.schemas.ts'

export class ApiError extends Error {
  readonly status: number
  readonly code: string
  constructor(status: number, code: string, message: string) {
    super(message)
    this.status = status
    this.code = code
  }
}

let csrfToken = ''
export function setCsrfToken(token: string): void {
  csrfToken = token
}

export async function api<T>(
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' }
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (method !== 'GET') {
    // Pages that change something before asking for the session (the invitation) fetch the token first.
    if (!csrfToken) {
      const state = await api<{ data: { csrf_token: string } }>('GET', '/session')
      csrfToken = state.data.csrf_token
    }
    headers['x-csrf-token'] = csrfToken
  }
  let res: Response
  try {
    res = await fetch(`/dashboard/api${path}`, {
      method,
      headers,
      credentials: 'same-origin',
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
  } catch {
    throw new ApiError(0, 'network', 'The service cannot be reached. Check your connection and try again.')
  }
  const json = (await res.json().catch(() => undefined)) as
    | { error?: { code: string; message: string; errors?: { message: string }[] } }
    | undefined
  if (!res.ok) {
    const error = json?.error
    const details = error?.errors?.map((e) => e.message).join(' ')
    throw new ApiError(
      res.status,
      error?.code ?? 'unknown',
      [error?.message ?? `The service answered ${res.status}.`, details].filter(Boolean).join(' '),
    )
  }
  return json as T
}

/** A timestamp as the reader's locale writes it. */
export const formatTime = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })
