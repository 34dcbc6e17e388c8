import { after, before } from 'node:test'
import { createTestApp, type TestApp } from './app.ts'
import { type Receiver, startReceiver } from './https-receiver.ts'
import { resolverWithWrongName } from './webhook-targets.ts'
/** One server-sent event frame as a client parses it (comments kept apart). */
export interface SseFrame {
  id?: string
  event: string
  data: string
}

/**
 * A listen stream (GET /v1/webhook-events/stream) read over real HTTP: frames
 * parsed as EventSource does, keepalive comments counted, and the end seen.
 */
export interface SseStream {
  status: number
  headers: Headers
  /** The error body when the stream was refused. */
  body?: string
  frames: SseFrame[]
  comments: string[]
  ended: Promise<void>
  /** Resolves with the first frame (from `from` on) that matches, or rejects after timeoutMs. */
  next(match?: (f: SseFrame) => boolean, options?: { from?: number; timeoutMs?: number }): Promise<SseFrame>
  close(): void
}

export async function openStream(
  baseUrl: string,
  key: string,
  options: { query?: string; lastEventId?: string } = {},
): Promise<SseStream> {
  const abort = new AbortController()
  const res = await fetch(`${baseUrl}/v1/webhook-events/stream${options.query ?? ''}`, {
    headers: {
      authorization: `Bearer ${key}`,
      ...(options.lastEventId ? { 'last-event-id': options.lastEventId } : {}),
    },
    signal: abort.signal,
  })
  const frames: SseFrame[] = []
  const comments: string[] = []
  const waiters = new Set<() => void>()
  if (res.status !== 200) {
    return {
      status: res.status,
      headers: res.headers,
      body: await res.text(),
      frames,
      comments,
      ended: Promise.resolve(),
      next: () => Promise.reject(new Error(`stream refused: ${res.status}`)),
      close: () => abort.abort(),
    }
  }
  let done = false
  const ended = (async () => {
    const decoder = new TextDecoder()
    let buffer = ''
    try {
      const reader = res.body!.getReader()
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        const chunk = read.value
        buffer += decoder.decode(chunk, { stream: true })
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const frame: SseFrame = { event: 'message', data: '' }
          const data: string[] = []
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line)
            else if (line.startsWith('id: ')) frame.id = line.slice(4)
            else if (line.startsWith('event: ')) frame.event = line.slice(7)
            else if (line.startsWith('data: ')) data.push(line.slice(6))
          }
          frame.data = data.join('\n')
          if (data.length > 0) frames.push(frame)
          for (const w of waiters) w()
        }
      }
    } catch {
      // Aborted by close().
    }
    done = true
    for (const w of waiters) w()
  })()
  return {
    status: res.status,
    headers: res.headers,
    frames,
    comments,
    ended,
    next(match = () => true, { from = 0, timeoutMs = 10_000 } = {}) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = frames.slice(from).find(match)
          if (found) {
            cleanup()
            resolve(found)
          } else if (done) {
            cleanup()
            reject(new Error(`stream ended without the frame; got ${JSON.stringify(frames)}`))
          }
        }
        const timer = setTimeout(() => {
          cleanup()
          reject(new Error(`no matching frame within ${timeoutMs} ms; got ${JSON.stringify(frames)}`))
        }, timeoutMs)
        const cleanup = () => {
          clearTimeout(timer)
          waiters.delete(check)
        }
        waiters.add(check)
        check()
      })
    },
    close: () => abort.abort(),
  }
}

/**
 * An in-process app listening on a free port, and an HTTPS receiver, for the
 * listen stream tests of a file; streams pushed to `opened` are closed after it.
 */
export function useListenApp(options: Parameters<typeof createTestApp>[0] = {}) {
  const ctx = { opened: [] as SseStream[] } as {
    t: TestApp
    base: string
    receiver: Receiver
    opened: SseStream[]
  }
  before(async () => {
    ctx.t = await createTestApp({
      resolver: resolverWithWrongName,
      webhookAllowPrivateCidrs: ['127.0.0.0/8'],
      ...options,
    })
    await ctx.t.app.listen({ port: 0, host: '127.0.0.1' })
    ctx.base = `http://127.0.0.1:${(ctx.t.app.server.address() as { port: number }).port}`
    ctx.receiver = await startReceiver()
  })
  after(async () => {
    for (const s of ctx.opened) s.close()
    await ctx.receiver.close()
    await ctx.t.close()
  })
  return ctx
}
