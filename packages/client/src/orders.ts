import type { Transport } from './transport.ts'
import type { CreateOrderRequest, ListOrdersQuery, Order, OrdersPage, OrderWarning } from './types.ts'

export interface CreatedOrder {
  order: Order
  warnings: OrderWarning[]
  /**
   * true: this request created the order (201). false: the service already
   * had it (200, an identical earlier request), which includes an earlier
   * attempt of this very call whose answer was lost. Both are success.
   */
  created: boolean
  status: 200 | 201
  requestId: string | undefined
}

/**
 * Where a feed of order changes stands, to store between runs (plain JSON).
 * `updated_since` is the latest `updated_at` handed out; `seen` the orders
 * (`id@updated_at`) handed out within the overlap before it.
 */
export interface OrdersCheckpoint {
  updated_since: string | null
  seen: string[]
}

export interface ChangesOptions {
  /** Resume from a stored checkpoint. */
  checkpoint?: OrdersCheckpoint | undefined
  /** Without a checkpoint: start here (default: from the first order). */
  updatedSince?: string | Date | undefined
  /** How far before the checkpoint to read again, for changes committed late. Default 60 000 ms. */
  overlapMs?: number
  /** Orders per page, 1 to 100. Default 100. */
  limit?: number
  signal?: AbortSignal
}

/** An async iterable of changed orders that keeps its checkpoint up to date. */
export interface OrderChanges extends AsyncIterable<Order> {
  /** Covers every order the loop body has finished with (taken when the next one is asked for). */
  readonly checkpoint: OrdersCheckpoint
}

const key = (order: Order) => `${order.id}@${order.updated_at}`
const keyTime = (k: string) => Date.parse(k.slice(k.indexOf('@') + 1))

export class Orders {
  readonly #transport: Transport
  constructor(transport: Transport) {
    this.#transport = transport
  }

  /**
   * POST /v1/orders. Sent again after a 429, 500, 503 or a lost answer: an
   * identical repeat never creates a second order.
   */
  async create(order: CreateOrderRequest, options: { signal?: AbortSignal } = {}): Promise<CreatedOrder> {
    const answer = await this.#transport.call('POST', '/v1/orders', {
      body: order,
      retry: 'safe',
      signal: options.signal,
    })
    const status = answer.status === 201 ? 201 : 200
    return { ...answer.body.data, created: status === 201, status, requestId: answer.requestId }
  }

  /** GET /v1/orders/{id}. */
  async get(id: string, options: { signal?: AbortSignal } = {}): Promise<Order> {
    const answer = await this.#transport.call('GET', '/v1/orders/{id}', {
      params: { path: { id } },
      retry: 'safe',
      signal: options.signal,
    })
    return answer.body.data.order
  }

  /** One page of GET /v1/orders. */
  async list(query: ListOrdersQuery = {}, options: { signal?: AbortSignal } = {}): Promise<OrdersPage> {
    const answer = await this.#transport.call('GET', '/v1/orders', {
      params: { query },
      retry: 'safe',
      signal: options.signal,
    })
    return answer.body
  }

  /** Every order changed since `updated_since`, oldest change first, page after page. */
  async *all(query: Omit<ListOrdersQuery, 'cursor'> = {}, options: { signal?: AbortSignal } = {}) {
    let cursor: string | undefined
    do {
      const page = await this.list(cursor ? { ...query, cursor } : query, options)
      yield* page.data
      cursor = page.next_cursor ?? undefined
    } while (cursor)
  }

  /**
   * The orders changed since the checkpoint (or `updatedSince`), each change
   * once: it reads from `overlapMs` before the checkpoint, so a change
   * committed late is not missed, and skips what it already handed out
   * (same id and `updated_at`). Store `checkpoint` after the loop and pass it
   * to the next run.
   */
  changes(options: ChangesOptions = {}): OrderChanges {
    const overlapMs = options.overlapMs ?? 60_000
    const start = options.checkpoint
    let latest = start?.updated_since ?? null
    const seen = new Set(start?.seen ?? [])
    const since = latest
      ? new Date(Date.parse(latest) - overlapMs).toISOString()
      : options.updatedSince instanceof Date
        ? options.updatedSince.toISOString()
        : options.updatedSince
    const query = { limit: options.limit ?? 100, ...(since ? { updated_since: since } : {}) }
    const all = () => this.all(query, options.signal ? { signal: options.signal } : {})
    const prune = () => {
      if (!latest) return
      const floor = Date.parse(latest) - overlapMs
      for (const k of seen) if (keyTime(k) < floor) seen.delete(k)
    }
    return {
      get checkpoint() {
        return { updated_since: latest, seen: [...seen] }
      },
      async *[Symbol.asyncIterator]() {
        for await (const order of all()) {
          if (seen.has(key(order))) continue
          yield order
          // Reached only when the loop body asks for the next order: this one is done.
          seen.add(key(order))
          if (!latest || Date.parse(order.updated_at) > Date.parse(latest)) latest = order.updated_at
          prune()
        }
      },
    }
  }
}
