import type { Socket } from 'node:net'
import { buildConnector } from 'undici'

/** Longest interim response kept while waiting for its end; a longer one is left to the HTTP parser. */
const MAX_INTERIM_BYTES = 16 * 1024
const HEAD_END = Buffer.from('\r\n\r\n')
/** How every HTTP/1 status line begins; "HTTP/1.1 1dd " is 13 bytes. */
const STATUS_PREFIX = Buffer.from('HTTP/1.')

/**
 * Whether `head` (the beginning of a response) is, or could still become, an
 * interim (1xx) response other than 101: undefined while too short to tell.
 */
function isInterim(head: Buffer): boolean | undefined {
  const known = Math.min(head.length, STATUS_PREFIX.length)
  if (head.compare(STATUS_PREFIX, 0, known, 0, known) !== 0) return false
  if (head.length < 13) return undefined
  // "HTTP/1.1 1dd ": 101 switches protocols, which no webhook request asks for.
  return head[9] === 0x31 && head[12] === 0x20 && !(head[10] === 0x30 && head[11] === 0x31)
}

/**
 * Drops interim (1xx) responses that come before a final response on a
 * webhook connection, so the HTTP client sees only the final one. RFC 9110
 * 15.2: a client must be able to parse one or more 1xx responses before the
 * final response, even when it did not expect one; undici destroys the
 * connection on a `100 Continue` it did not ask for ("bad response"), which
 * turned a receiver's 100 followed by 200 into a connection_error.
 *
 * undici reads a connection with `socket.read()` and sends one request at a
 * time on it (pipelining 1), so a response begins with the first byte read
 * after a request was written: only there is a status line looked at; the
 * rest of a response passes untouched.
 */
export function dropInterimResponses(socket: Socket): void {
  const read = socket.read
  const write = socket.write
  /** The next bytes read begin a response (after any interim responses). */
  let atStart = true
  /** Bytes of a final response were passed on since the last request went out. */
  let answered = false
  /** The beginning of a response not yet told apart (too short, or an unfinished interim response). */
  let held: Buffer | undefined

  socket.write = function (this: Socket, chunk: unknown, encoding?: unknown, callback?: unknown) {
    if (answered) {
      answered = false
      atStart = true
    }
    return (write as (c: unknown, e: unknown, cb: unknown) => boolean).call(this, chunk, encoding, callback)
  } as Socket['write']

  socket.read = function (this: Socket, size?: number) {
    if (!atStart || size !== undefined) return read.call(this, size)
    for (;;) {
      const chunk: Buffer | null = read.call(this)
      if (chunk === null) return null
      let head = held ? Buffer.concat([held, chunk]) : chunk
      held = undefined
      for (;;) {
        const interim = isInterim(head)
        if (interim === false) {
          atStart = false
          answered = true
          return head
        }
        const end = interim ? head.indexOf(HEAD_END) : -1
        if (end === -1) {
          // Not told apart yet: wait for more bytes, unless this is no interim
          // response the parser would accept anyway.
          if (head.length > MAX_INTERIM_BYTES) {
            atStart = false
            answered = true
            return head
          }
          held = head
          break
        }
        head = head.subarray(end + HEAD_END.length)
        if (head.length === 0) break
      }
    }
  } as Socket['read']
}

/**
 * undici's connector (TLS, the given lookup and connect timeout) whose
 * connections drop interim responses before the final one.
 */
export function interimTolerantConnector(options: buildConnector.BuildOptions): buildConnector.connector {
  const connect = buildConnector(options)
  return (opts, callback) =>
    connect(opts, (err, socket) => {
      if (socket) dropInterimResponses(socket)
      ;(callback as (e: Error | null, s: typeof socket) => void)(err, socket)
    })
}
