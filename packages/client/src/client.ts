import { Orders } from './orders.ts'
import { Transport, type TransportOptions } from './transport.ts'
import type { Ping } from './types.ts'
import { Uploads } from './uploads.ts'

export type ClientOptions = TransportOptions

/**
 * The API client: `orders` (create, get, pages, changes feed) and `uploads`
 * (slots and the PUT of the bytes). Every call sends the key as a Bearer
 * token and follows the service's retry rules (see Transport).
 */
export class OrderIntakeClient {
  readonly orders: Orders
  readonly uploads: Uploads
  readonly #transport: Transport

  constructor(options: ClientOptions) {
    this.#transport = new Transport(options)
    this.orders = new Orders(this.#transport)
    this.uploads = new Uploads(this.#transport)
  }

  /** GET /v1/ping: the key's organization, environment and scopes. */
  async ping(options: { signal?: AbortSignal } = {}): Promise<Ping> {
    const answer = await this.#transport.call('GET', '/v1/ping', {
      retry: 'safe',
      signal: options.signal,
    })
    return answer.body.data
  }

  /** Any other JSON call (path from the root, `/v1/...`), with the same retries; `retry: 'safe'` only for calls that may be repeated. */
  request<T = unknown>(
    method: string,
    path: string,
    options: {
      query?: Record<string, string | number | undefined>
      body?: unknown
      retry?: 'safe' | 'rate-limit'
      signal?: AbortSignal
    } = {},
  ) {
    return this.#transport.request<T>(method, path, { ...options, retry: options.retry ?? 'rate-limit' })
  }
}
