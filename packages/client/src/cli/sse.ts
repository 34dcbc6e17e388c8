/** One server-sent event as the standard defines it (https://html.spec.whatwg.org/#event-stream-interpretation). */
export interface ServerSentEvent {
  event: string
  data: string
  /** The `id:` of this frame, undefined when it had none. */
  id: string | undefined
  /** A `retry:` in milliseconds, when the frame set one. */
  retry: number | undefined
}

/**
 * Parses an event stream: lines end in LF, CR or CRLF; `:` starts a comment;
 * a blank line dispatches the frame. `onBytes` is called for every chunk
 * (keepalive comments included), so a caller can tell a silent connection.
 */
export async function* readEvents(
  body: AsyncIterable<Uint8Array>,
  onBytes: () => void = () => {},
): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder()
  let buffer = ''
  let frame = {
    event: '',
    data: [] as string[],
    id: undefined as string | undefined,
    retry: undefined as number | undefined,
  }
  const reset = () => {
    frame = { event: '', data: [], id: undefined, retry: undefined }
  }
  /** Complete lines of the buffer; at the end of input a trailing CR ends a line too. */
  function* lines(final: boolean): Generator<string> {
    for (;;) {
      const end = buffer.search(/\r\n|\r|\n/)
      // A CR at the end of a chunk may be the first half of a CRLF: wait for more.
      if (end === -1 || (!final && buffer[end] === '\r' && end === buffer.length - 1)) return
      const line = buffer.slice(0, end)
      buffer = buffer.slice(end + (buffer.startsWith('\r\n', end) ? 2 : 1))
      yield line
    }
  }
  function* take(line: string): Generator<ServerSentEvent> {
    if (line === '') {
      if (frame.data.length > 0) {
        yield {
          event: frame.event || 'message',
          data: frame.data.join('\n'),
          id: frame.id,
          retry: frame.retry,
        }
      }
      reset()
      return
    }
    if (line.startsWith(':')) return
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'event') frame.event = value
    else if (field === 'data') frame.data.push(value)
    else if (field === 'id' && !value.includes('\0')) frame.id = value
    else if (field === 'retry' && /^\d+$/.test(value)) frame.retry = Number(value)
  }
  for await (const chunk of body) {
    onBytes()
    buffer += decoder.decode(chunk, { stream: true })
    for (const line of lines(false)) yield* take(line)
  }
  buffer += decoder.decode()
  for (const line of lines(true)) yield* take(line)
}
