import { randomInt } from 'node:crypto'
import { OrderIntakeError } from '../errors.ts'
import { webhookHeaders } from '../webhooks.ts'
import { readEvents } from './sse.ts'

/** The product token the service's own deliveries carry, so a handler sees the same request. */
export const WEBHOOK_USER_AGENT = 'Service-Webhooks/1.0'
/** A local handler gets as long as a registered endpoint would. */
const FORWARD_TIMEOUT_MS = 10_000
/** Keepalives come every 15 s; three missed ones mean the connection is dead. */
const SILENCE_MS = 45_000

export interface ListenOptions {
  baseUrl: string
  apiKey: string
  forwardTo: string
  /** Event types to receive; all when empty. */
  events?: string[]
  /** Per-session secret; default a new `whsec_` one. */
  secret?: string
  /** Reconnection delays: from minDelayMs doubling up to maxDelayMs. */
  minDelayMs?: number
  maxDelayMs?: number
  silenceMs?: number
  signal?: AbortSignal
  log?: (line: string) => void
  /** The base URL is the CLI's default, not one the user gave: the first line says how to name the service. */
  baseUrlIsDefault?: boolean
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/**
 * A new session secret like an endpoint's: `whsec_` and 43 random letters and
 * digits, valid base64, so Standard Webhooks libraries take it as it is.
 */
export const sessionSecret = () =>
  `whsec_${Array.from({ length: 43 }, () => ALPHANUMERIC[randomInt(ALPHANUMERIC.length)]).join('')}`

/** A refusal that reconnecting will not fix (bad key, missing scope, bad filter, too many sessions). */
export class ListenRefused extends Error {}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms)
    signal?.addEventListener('abort', () => {
      clearTimeout(timer)
      resolve()
    })
  })

/**
 * Opens GET /v1/webhook-events/stream and POSTs each event to `forwardTo`
 * with the headers a registered endpoint gets, signed with the session
 * secret. Reconnects with Last-Event-ID until `signal` aborts; rejects with
 * ListenRefused when the service refuses the session for good.
 */
export async function listen(options: ListenOptions): Promise<void> {
  const log = options.log ?? ((line: string) => console.log(line))
  const secret = options.secret ?? sessionSecret()
  const base = options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '')
  const url = new URL(`${base}/v1/webhook-events/stream`)
  if (options.events?.length) url.searchParams.set('events', options.events.join(','))
  const minDelay = options.minDelayMs ?? 1000
  const maxDelay = options.maxDelayMs ?? 30_000
  let delay = minDelay
  let lastEventId: string | undefined
  log(`Your webhook signing secret for this session is ${secret}`)
  log(`Forwarding to ${options.forwardTo}. Ctrl-C to stop.`)
  log(
    `Connecting to ${base}${options.baseUrlIsDefault ? ' (the default: --base-url or ORDER_INTAKE_BASE_URL names the service)' : ''}`,
  )
  let connected = false

  while (!options.signal?.aborted) {
    const connection = new AbortController()
    const stop = () => connection.abort()
    options.signal?.addEventListener('abort', stop)
    let silence: ReturnType<typeof setTimeout> | undefined
    const heard = () => {
      clearTimeout(silence)
      silence = setTimeout(() => connection.abort(new Error('no keepalive')), options.silenceMs ?? SILENCE_MS)
    }
    try {
      heard()
      const res = await fetch(url, {
        headers: {
          authorization: `Bearer ${options.apiKey}`,
          accept: 'text/event-stream',
          ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
        },
        signal: connection.signal,
      })
      if (!res.ok) {
        const error = await OrderIntakeError.fromResponse(res)
        if (res.status !== 429 && res.status !== 408 && res.status < 500) {
          throw new ListenRefused(`${error.status} ${error.code}: ${error.message}`)
        }
        log(`Stream refused (${error.status} ${error.code}); trying again`)
        if (error.retryAfter !== undefined) delay = Math.max(delay, error.retryAfter * 1000)
      } else {
        for await (const frame of readEvents(res.body as AsyncIterable<Uint8Array>, heard)) {
          if (frame.retry !== undefined) delay = frame.retry
          if (frame.event === 'ready') {
            connected = true
            const ready = JSON.parse(frame.data) as { environment: string; events: string[] | null }
            log(`Ready: ${ready.environment} events${ready.events ? ` (${ready.events.join(', ')})` : ''}`)
            delay = minDelay
            continue
          }
          log(await forward(options.forwardTo, frame.data, secret))
          if (frame.id !== undefined) lastEventId = frame.id
        }
        if (!options.signal?.aborted) log('Stream closed by the service; reconnecting')
      }
    } catch (err) {
      if (err instanceof ListenRefused) throw err
      if (!options.signal?.aborted) {
        log(
          connected
            ? `Stream from ${base} lost (${reason(err)}); reconnecting`
            : `Cannot reach ${base} (${reason(err)}); trying again in ${Math.round(delay / 1000)} s`,
        )
      }
    } finally {
      clearTimeout(silence)
      options.signal?.removeEventListener('abort', stop)
    }
    await sleep(delay, options.signal)
    delay = Math.min(maxDelay, delay * 2)
  }
}

/** Why a connection failed, with the system's code when fetch hides it (`fetch failed: ECONNREFUSED`). */
function reason(err: unknown): string {
  const error = err as Error & { cause?: { code?: string; message?: string } }
  const cause = error.cause?.code ?? error.cause?.message
  return cause && !error.message.includes(cause) ? `${error.message}: ${cause}` : error.message
}

/** POSTs one event body verbatim and returns the line to print. */
async function forward(target: string, body: string, secret: string): Promise<string> {
  let event: { id?: string; type?: string }
  try {
    event = JSON.parse(body)
  } catch {
    return `${new Date().toISOString()}  (unreadable event skipped)`
  }
  const head = `${new Date().toISOString()}  ${event.type}  ${event.id}`
  try {
    const res = await fetch(target, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': WEBHOOK_USER_AGENT,
        'x-service-event-id': String(event.id),
        'x-service-event-type': String(event.type),
        ...(await webhookHeaders(body, secret, { id: String(event.id) })),
      },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    })
    await res.body?.cancel()
    return `${head}  -> ${res.status}`
  } catch (err) {
    const cause = (err as Error & { cause?: Error }).cause
    return `${head}  -> failed: ${cause?.message ?? (err as Error).message}`
  }
}
