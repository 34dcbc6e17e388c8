import type { Shape } from './body-shape.ts'
import type { ValidationEntry } from './errors.ts'
import {
  at,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  FAIL,
  OPEN_BRACE,
  OPEN_BRACKET,
  type Pacer,
  QUOTE,
  SLICE,
  scalar,
  skip,
  stringAt,
  ws,
} from './json-tokens.ts'

/**
 * One pass over a JSON body's bytes, guided by the route's body shape, before
 * anything is parsed. JSON.parse of 10 MB of tiny values takes about a second
 * and validating them with every error collected takes seconds and gigabytes,
 * so a body is first reduced to what its schema can hold: an array or object
 * with more entries than its limit keeps the limit plus a small slack shared by
 * the whole body (so that ordinary mistakes are reported exactly as validation
 * would report them) and loses the rest; a container where the schema allows
 * none, or the value of an unknown field, becomes an empty one. What is cut is
 * still checked to be JSON. The pass is linear in the body's length, recursive
 * only as deep as the schema, and gives way to other work after every
 * megabyte.
 */
export interface ScannedBody {
  /** The reduced body; the input itself when nothing was cut or replaced. */
  bytes: Buffer
  /** Whether anything was cut or replaced: the body is then certainly invalid. */
  edited: boolean
  /** too_many for each container that was cut, in document order. */
  entries: ValidationEntry[]
}

const SCALAR: Shape = {}
const EMPTY_OBJECT = Buffer.from('{}')
const EMPTY_ARRAY = Buffer.from('[]')
const NOTHING = Buffer.alloc(0)

class Syntax extends Error {}
const SYNTAX = new Syntax('not JSON')
const ok = (p: number): number => {
  if (p === FAIL) throw SYNTAX
  return p
}
const join = (path: string, key: string) => (path ? `${path}.${key}` : key)

type Scan = Generator<void, number>

/** The shaped part of the body: the objects and arrays the schema describes. */
class Reducer {
  readonly entries: ValidationEntry[] = []
  readonly pieces: Buffer[] = []
  copied = 0
  readonly pacer: Pacer = { pauseAt: SLICE }
  private readonly b: Buffer
  private slack: number

  constructor(b: Buffer, slack: number) {
    this.b = b
    this.slack = slack
  }

  private edit(from: number, to: number, by: Buffer): void {
    this.pieces.push(this.b.subarray(this.copied, from), by)
    this.copied = to
  }

  *value(p: number, shape: Shape, path: string): Scan {
    const c = at(this.b, p)
    if (c === OPEN_BRACE && shape.object) return yield* this.object(p, shape.object, path)
    if (c === OPEN_BRACKET && shape.array) return yield* this.array(p, shape.array, path)
    if (c !== QUOTE && c !== OPEN_BRACE && c !== OPEN_BRACKET) return ok(scalar(this.b, p, false))
    if (c === QUOTE) {
      const end = ok(yield* stringAt(this.b, p, this.pacer, false))
      // No character takes more than 12 bytes (an escaped surrogate pair): a
      // longer string is too long whatever it holds, and a short stand-in that
      // is also too long gets it the same entry.
      if (shape.maxLength !== undefined && end - p - 2 > shape.maxLength * 12) {
        ok(yield* stringAt(this.b, p, this.pacer, true)) // JSON.parse will not see it
        this.edit(p, end, Buffer.from(`"${'x'.repeat(shape.maxLength + 1)}"`))
      }
      return end
    }
    // Not allowed here: validation reports the type of an empty one just the same.
    const end = ok(yield* skip(this.b, p, this.pacer))
    if (end - p > 2) this.edit(p, end, c === OPEN_BRACE ? EMPTY_OBJECT : EMPTY_ARRAY)
    return end
  }

  /** Whether a container already holding `count` entries may keep one more. */
  private keep(count: number, limit: number, path: string): boolean {
    if (count < limit) return true
    if (this.slack > 0) {
      this.slack--
      return true
    }
    const field = path || 'body'
    const entries = limit === 1 ? 'entry' : 'entries'
    this.entries.push({ code: 'too_many', field, message: `${field} must have at most ${limit} ${entries}` })
    return false
  }

  /** Drops the entries from `from` to the container's close, and returns the end of the container. */
  private *drop(from: number, p: number, open: number): Scan {
    const end = ok(yield* skip(this.b, p, this.pacer, open))
    this.edit(from, end - 1, NOTHING)
    return end
  }

  private *object(p: number, o: NonNullable<Shape['object']>, path: string): Scan {
    const b = this.b
    p = ws(b, p + 1)
    if (at(b, p) === CLOSE_BRACE) return p + 1
    let separator = p
    for (let count = 0; ; count++) {
      if (!this.keep(count, o.limit, path)) return yield* this.drop(separator, p, OPEN_BRACE)
      if (at(b, p) !== QUOTE) throw SYNTAX
      const keyStart = p
      p = ok(yield* stringAt(b, p, this.pacer, false))
      const key = this.key(keyStart, p)
      p = ws(b, p)
      if (at(b, p) !== COLON) throw SYNTAX
      p = ws(b, p + 1)
      const child = o.properties.get(key) ?? o.additional
      p = yield* this.value(p, child === false ? SCALAR : child, join(path, key))
      const end = p
      p = ws(b, p)
      const c = at(b, p++)
      if (c === CLOSE_BRACE) return p
      if (c !== COMMA) throw SYNTAX
      separator = end
      p = ws(b, p)
    }
  }

  private *array(p: number, a: NonNullable<Shape['array']>, path: string): Scan {
    const b = this.b
    p = ws(b, p + 1)
    if (at(b, p) === CLOSE_BRACKET) return p + 1
    let separator = p
    for (let index = 0; ; index++) {
      if (!this.keep(index, a.limit, path)) return yield* this.drop(separator, p, OPEN_BRACKET)
      p = yield* this.value(p, a.items, join(path, String(index)))
      const end = p
      p = ws(b, p)
      const c = at(b, p++)
      if (c === CLOSE_BRACKET) return p
      if (c !== COMMA) throw SYNTAX
      separator = end
      p = ws(b, p)
    }
  }

  private key(start: number, end: number): string {
    const raw = this.b.toString('utf8', start, end)
    if (!raw.includes('\\')) return raw.slice(1, -1)
    try {
      return JSON.parse(raw) as string
    } catch {
      throw SYNTAX
    }
  }
}

// Paused scans resume one slice per turn of the event loop, in turn, so that
// however many run at once, other requests are served between two slices.
const waiting: (() => void)[] = []
function resumeOne(): void {
  waiting.shift()?.()
  if (waiting.length > 0) setImmediate(resumeOne)
}
function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    if (waiting.push(resolve) === 1) setImmediate(resumeOne)
  })
}

/** Runs a scan to its end, one slice per turn of the event loop. */
export async function paced<T>(scan: Generator<void, T>): Promise<T> {
  for (;;) {
    const step = scan.next()
    if (step.done) return step.value
    await nextTurn()
  }
}

/**
 * Reduces a JSON body (UTF-8 bytes) to what `shape` can hold, keeping at most
 * `slack` entries beyond the limits in the whole body. Undefined when the body
 * is not JSON.
 */
export async function scanBody(bytes: Buffer, shape: Shape, slack: number): Promise<ScannedBody | undefined> {
  const reducer = new Reducer(bytes, slack)
  // TextDecoder drops a leading byte order mark; so does the scan.
  const bom = at(bytes, 0) === 0xef && at(bytes, 1) === 0xbb && at(bytes, 2) === 0xbf
  let end: number
  try {
    end = ws(bytes, await paced(reducer.value(ws(bytes, bom ? 3 : 0), shape, '')))
  } catch (err) {
    if (err instanceof Syntax) return undefined
    throw err
  }
  if (end !== bytes.length) return undefined
  if (reducer.pieces.length === 0) return { bytes, edited: false, entries: reducer.entries }
  reducer.pieces.push(bytes.subarray(reducer.copied))
  return { bytes: Buffer.concat(reducer.pieces), edited: true, entries: reducer.entries }
}
