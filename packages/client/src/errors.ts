import type { ValidationEntry } from './types.ts'

/**
 * The service answered with an error. `code` is the stable identifier to
 * branch on; a code this version does not know is a generic failure of its
 * status class. `errors` lists every problem of a `validation_failed`.
 */
export class OrderIntakeError extends Error {
  override readonly name = 'OrderIntakeError'
  readonly status: number
  readonly code: string
  readonly field: string | undefined
  readonly errors: ValidationEntry[]
  readonly docUrl: string | undefined
  /** The `X-Request-Id` of the answer: quote it to support. */
  readonly requestId: string | undefined
  /** Seconds from `Retry-After`, when the answer carried one (429). */
  readonly retryAfter: number | undefined

  constructor(init: {
    status: number
    code: string
    message: string
    field?: string | undefined
    errors?: ValidationEntry[] | undefined
    docUrl?: string | undefined
    requestId?: string | undefined
    retryAfter?: number | undefined
  }) {
    super(init.message)
    this.status = init.status
    this.code = init.code
    this.field = init.field
    this.errors = init.errors ?? []
    this.docUrl = init.docUrl
    this.requestId = init.requestId
    this.retryAfter = init.retryAfter
  }

  /** Reads an error answer; one that is not the service's error shape (a proxy's page) gets code `unexpected_response`. */
  static async fromResponse(res: Response): Promise<OrderIntakeError> {
    const requestId = res.headers.get('x-request-id') ?? undefined
    const retryAfter = retryAfterSeconds(res.headers.get('retry-after'))
    const text = await res.text().catch(() => '')
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      parsed = undefined
    }
    const error = (parsed as { error?: Record<string, unknown> } | undefined)?.error
    if (error && typeof error.code === 'string' && typeof error.message === 'string') {
      return new OrderIntakeError({
        status: res.status,
        code: error.code,
        message: error.message,
        field: typeof error.field === 'string' ? error.field : undefined,
        errors: Array.isArray(error.errors) ? (error.errors as ValidationEntry[]) : [],
        docUrl: typeof error.doc_url === 'string' ? error.doc_url : undefined,
        requestId,
        retryAfter,
      })
    }
    return new OrderIntakeError({
      status: res.status,
      code: 'unexpected_response',
      message: `HTTP ${res.status} without the service's error object${text ? `: ${text.slice(0, 200)}` : ''}`,
      requestId,
      retryAfter,
    })
  }
}

/** No answer arrived (connection refused or reset, DNS, timeout); `attempts` were made. */
export class OrderIntakeConnectionError extends Error {
  override readonly name = 'OrderIntakeConnectionError'
  readonly attempts: number
  /** The `X-Request-Id` the client sent with every attempt. */
  readonly requestId: string | undefined

  constructor(message: string, init: { cause: unknown; attempts: number; requestId?: string | undefined }) {
    super(message, { cause: init.cause })
    this.attempts = init.attempts
    this.requestId = init.requestId
  }
}

/** `Retry-After` as seconds: a number of seconds or an HTTP date. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined
  if (/^\d+$/.test(value.trim())) return Number(value.trim())
  const at = Date.parse(value)
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000))
}
