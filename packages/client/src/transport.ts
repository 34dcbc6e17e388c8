import type {
  IsOperationRequestBodyOptional,
  PathsWithMethod,
  RequestBodyJSON,
  RequiredKeysOf,
  SuccessResponseJSON,
} from 'openapi-typescript-helpers'
import { OrderIntakeConnectionError, OrderIntakeError, retryAfterSeconds } from './errors.ts'
import type { paths } from './generated/openapi.ts'

export interface TransportOptions {
  /** The service's address, e.g. `https://orders.example.com` (a trailing `/v1` is accepted). */
  baseUrl: string
  apiKey: string
  /** Another fetch (a test double, a proxy-aware one); default the global fetch. */
  fetch?: typeof fetch
  /** Retries after the first attempt (429, and where safe 500/503 and lost answers). Default 3. */
  maxRetries?: number
  /** Deadline of one attempt, answer body included. Default 30 000 ms. */
  timeoutMs?: number
  /** A Retry-After longer than this is not waited for: the 429 is thrown. Default 60 000 ms. */
  maxRetryDelayMs?: number
}

/**
 * When a request may be sent again. `rate-limit`: only after a 429 (the
 * service refused it unprocessed). `safe`: also after 500, 503 and when no
 * answer came, because sending it twice changes nothing: reads, the PUT of an
 * upload, and POST /v1/orders (an identical repeat returns the same order).
 */
export type RetryPolicy = 'safe' | 'rate-limit'

/** Query values of an untyped call; undefined and null ones are left out. */
export type QueryValues = Record<string, string | number | undefined | null>

export interface RequestOptions {
  query?: QueryValues | undefined
  body?: unknown
  retry: RetryPolicy
  signal?: AbortSignal | undefined
}

/** The methods the client sends, as HTTP spells them. */
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
/** The document's paths that take the method. */
export type PathOf<M extends Method> = PathsWithMethod<paths, Lowercase<M>>
/** The document's operation at a path and method. */
export type Operation<P extends keyof paths, M extends Method> = paths[P][Lowercase<M>]

/** The path and query parameters of an operation (headers are the transport's). */
type Params<Op> = Op extends { parameters: infer P } ? Pick<P, ('path' | 'query') & keyof P> : never

/**
 * What a typed call takes, read from the document with
 * openapi-typescript-helpers as openapi-fetch reads it: the path and query
 * parameters under `params` (required when the path has one), and the JSON
 * body (required when the operation requires one, refused when it takes none).
 */
export type CallOptions<Op> = { retry: RetryPolicy; signal?: AbortSignal | undefined } & (RequiredKeysOf<
  Params<Op>
> extends never
  ? { params?: Params<Op> }
  : { params: Params<Op> }) &
  (IsOperationRequestBodyOptional<Op> extends true
    ? { body?: RequestBodyJSON<Op> }
    : { body: RequestBodyJSON<Op> })

export interface Answer<T> {
  status: number
  body: T
  headers: Headers
  requestId: string | undefined
  /** Attempts made, 1 when the first one answered. */
  attempts: number
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const timer = setTimeout(resolve, ms)
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer)
        reject(signal.reason)
      },
      { once: true },
    )
  })

/** 0.5 s, 1 s, 2 s, ... up to 8 s, each with up to 25 % jitter so that clients do not retry in step. */
export const backoffMs = (attempt: number) => Math.min(8000, 500 * 2 ** attempt) * (1 + Math.random() * 0.25)

const newRequestId = (): string | undefined =>
  typeof globalThis.crypto?.randomUUID === 'function' ? globalThis.crypto.randomUUID() : undefined

export class Transport {
  readonly baseUrl: string
  readonly #apiKey: string
  readonly #fetch: typeof fetch
  readonly #maxRetries: number
  readonly #timeoutMs: number
  readonly #maxRetryDelayMs: number

  constructor(options: TransportOptions) {
    if (!options.apiKey) throw new TypeError('apiKey is required')
    this.baseUrl = options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '')
    this.#apiKey = options.apiKey
    this.#fetch = options.fetch ?? ((...args) => globalThis.fetch(...args))
    this.#maxRetries = options.maxRetries ?? 3
    this.#timeoutMs = options.timeoutMs ?? 30_000
    this.#maxRetryDelayMs = options.maxRetryDelayMs ?? 60_000
  }

  /**
   * A JSON call to one of the document's operations, by method and path as
   * the document writes them (`/v1/orders/{id}`, the id in `params.path`):
   * a wrong path, parameter or body fails the type check.
   */
  call<M extends Method, P extends PathOf<M>>(
    method: M,
    path: P,
    options: CallOptions<Operation<P, M>>,
  ): Promise<Answer<SuccessResponseJSON<NonNullable<Operation<P, M>>>>> {
    const { params, ...rest } = options as RequestOptions & {
      params?: { path?: Record<string, string>; query?: QueryValues }
    }
    const filled = path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const value = params?.path?.[name]
      if (value === undefined) throw new TypeError(`${method} ${path}: no value for {${name}}`)
      return encodeURIComponent(value)
    })
    return this.request(method, filled, { ...rest, query: params?.query })
  }

  /** A JSON call to any path from the root (`/v1/...`), typed by the caller. */
  request<T>(method: string, path: string, options: RequestOptions): Promise<Answer<T>> {
    const url = new URL(this.baseUrl + path)
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined && value !== null) url.searchParams.set(name, String(value))
    }
    const requestId = newRequestId()
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#apiKey}`,
      accept: 'application/json',
    }
    if (requestId) headers['x-request-id'] = requestId
    const body = options.body === undefined ? undefined : JSON.stringify(options.body)
    if (body !== undefined) headers['content-type'] = 'application/json'
    return this.send<T>(url.href, { method, headers, body }, options.retry, options.signal, requestId)
  }

  /**
   * One request with the retry policy; `init` must be replayable when the
   * policy is `safe`. Answers 2xx with the parsed JSON body (undefined when empty or not JSON).
   */
  async send<T>(
    url: string,
    init: RequestInit,
    retry: RetryPolicy,
    signal?: AbortSignal,
    requestId?: string,
  ): Promise<Answer<T>> {
    for (let attempt = 0; ; attempt++) {
      const deadline = AbortSignal.timeout(this.#timeoutMs)
      const attemptSignal = signal ? AbortSignal.any([signal, deadline]) : deadline
      let res: Response
      let text: string
      try {
        res = await this.#fetch(url, { ...init, signal: attemptSignal })
        // Read the error body later: it may be thrown away for a retry.
        text = res.ok ? await res.text() : ''
      } catch (err) {
        if (signal?.aborted) throw signal.reason
        if (retry === 'safe' && attempt < this.#maxRetries) {
          await sleep(backoffMs(attempt), signal)
          continue
        }
        throw new OrderIntakeConnectionError(
          `${init.method ?? 'GET'} ${new URL(url).pathname}: no answer (${(err as Error).message})`,
          { cause: err, attempts: attempt + 1, requestId },
        )
      }
      if (res.ok) {
        let body: unknown
        try {
          body = text ? JSON.parse(text) : undefined
        } catch {
          body = undefined
        }
        const answeredId = res.headers.get('x-request-id') ?? requestId
        return {
          status: res.status,
          body: body as T,
          headers: res.headers,
          requestId: answeredId,
          attempts: attempt + 1,
        }
      }
      const retryable = res.status === 429 || (retry === 'safe' && (res.status === 500 || res.status === 503))
      if (retryable && attempt < this.#maxRetries) {
        const after = retryAfterSeconds(res.headers.get('retry-after'))
        const delay = after === undefined ? backoffMs(attempt) : after * 1000
        if (delay <= this.#maxRetryDelayMs) {
          await res.body?.cancel().catch(() => {})
          await sleep(delay, signal)
          continue
        }
      }
      throw await OrderIntakeError.fromResponse(res)
    }
  }
}
