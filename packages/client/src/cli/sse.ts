import { createParser, type EventSourceMessage } from 'eventsource-parser'

/** One server-sent event as the standard defines it (https://html.spec.whatwg.org/#event-stream-interpretation). */
export interface ServerSentEvent {
  event: string
  data: string
  /** The `id:` of this frame, undefined when it had none. */
  id: string | undefined
  /** A `retry:` in milliseconds, when the frame (or a frame without data before it) set one. */
  retry: number | undefined
}

/**
 * Reads an event stream with eventsource-parser (any line ending, chunks
 * split anywhere, comments skipped). `onBytes` is called for every chunk
 * (keepalive comments included), so a caller can tell a silent connection.
 */
export async function* readEvents(
  body: AsyncIterable<Uint8Array>,
  onBytes: () => void = () => {},
): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder()
  const ready: ServerSentEvent[] = []
  let retry: number | undefined
  const parser = createParser({
    onEvent(message: EventSourceMessage) {
      ready.push({ event: message.event || 'message', data: message.data, id: message.id, retry })
      retry = undefined
    },
    onRetry(interval) {
      retry = interval
    },
  })
  let endsWithCr = false
  const feed = (text: string) => {
    if (!text) return
    parser.feed(text)
    endsWithCr = text.endsWith('\r')
  }
  for await (const chunk of body) {
    onBytes()
    feed(decoder.decode(chunk, { stream: true }))
    yield* ready.splice(0)
  }
  feed(decoder.decode())
  // The parser holds a CR at the end of input until it knows whether an LF
  // follows; at the end of the stream it ends its line.
  if (endsWithCr) parser.feed('\n')
  yield* ready.splice(0)
}
