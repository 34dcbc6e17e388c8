import type { Insertable } from 'kysely'
import type { ApiRequestTable } from '../../db/schema.ts'

export type RequestLine = Insertable<ApiRequestTable>

export interface RecorderOptions {
  /** Writes lines in one statement (insertRequestLines). */
  write: (lines: RequestLine[]) => Promise<void>
  /** Told of lines that could not be written (see also reportTo). */
  onError?: (err: unknown, lost: number) => void
  /** How often the lines gathered so far are written (default 1 s). */
  flushIntervalMs?: number
  /** Lines a statement writes at most (default 500); a full batch is written at once. */
  batch?: number
  /** Lines waiting at most; past that new ones are dropped (default 20 000) and reported. */
  maxWaiting?: number
}

/**
 * Writes the request log off the request path: `record` only appends to this
 * process's buffer; a timer (or a full batch) writes what has gathered in
 * multi-row inserts, one at a time. A request never waits for its line, and a
 * database that is slow or down costs lines (reported through onError), never
 * answers. `flush` writes everything recorded so far (the dashboard's reads,
 * shutdown, tests).
 */
export function createRequestRecorder(options: RecorderOptions) {
  const intervalMs = options.flushIntervalMs ?? 1000
  const batch = options.batch ?? 500
  const maxWaiting = options.maxWaiting ?? 20_000
  let waiting: RequestLine[] = []
  let dropped = 0
  let writing: Promise<void> = Promise.resolve()
  let timer: NodeJS.Timeout | undefined
  let closed = false
  let onError = options.onError ?? (() => {})

  async function writeAll(): Promise<void> {
    while (waiting.length > 0) {
      const lines = waiting.slice(0, batch)
      waiting = waiting.slice(lines.length)
      try {
        await options.write(lines)
      } catch (err) {
        // The database refused or is away: what waits goes too, reported once.
        onError(err, lines.length + waiting.length)
        waiting = []
      }
    }
    if (dropped > 0) {
      onError(new Error('request log buffer full'), dropped)
      dropped = 0
    }
  }

  function write(): Promise<void> {
    if (timer) {
      clearTimeout(timer)
      timer = undefined
    }
    writing = writing.then(writeAll)
    return writing
  }

  return {
    /** Keeps a line for the next write; returns at once. */
    record(line: RequestLine): void {
      if (closed) return
      if (waiting.length >= maxWaiting) {
        dropped++
        return
      }
      waiting.push(line)
      if (waiting.length >= batch) void write()
      else if (!timer) {
        timer = setTimeout(write, intervalMs)
        timer.unref()
      }
    },

    /** Where lines that could not be written are reported from now on (the app's log). */
    reportTo(report: (err: unknown, lost: number) => void): void {
      onError = report
    },

    /** Writes every line recorded so far. */
    flush(): Promise<void> {
      return write()
    },

    /** Writes what is left and records nothing more. */
    async close(): Promise<void> {
      closed = true
      await write()
    },
  }
}

export type RequestRecorder = ReturnType<typeof createRequestRecorder>
