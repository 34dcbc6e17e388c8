import { paced } from './body-scan.ts'
import { AppError } from './errors.ts'
import { at, FAIL, QUOTE, SLICE, skip, ws } from './json-tokens.ts'

export const EMPTY_BODY = 'The body is empty: send a JSON value.'
const BACKSLASH = 92
const ESCAPES: Record<number, string> = { 8: '\\b', 9: '\\t', 10: '\\n', 12: '\\f', 13: '\\r' }

/** The first byte of the string at `start` that JSON does not allow there. */
interface Fault {
  p: number
  what: string
  fix?: string
}

function stringFault(b: Buffer, start: number): Fault {
  for (let p = start + 1; ; p++) {
    const c = at(b, p)
    if (c < 0) return { p: start, what: 'A string that is never closed starts', fix: 'add its closing quote' }
    if (c === BACKSLASH) {
      const e = at(b, p + 1)
      const hex = e === 117 && /^[0-9a-fA-F]{4}$/.test(b.toString('latin1', p + 2, p + 6))
      if (!hex && !'"\\/bfnrt'.includes(String.fromCharCode(e))) {
        return {
          p,
          what: 'An invalid escape sequence',
          fix: 'the escapes are \\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX',
        }
      }
      p += e === 117 ? 5 : 1
    } else if (c < 32) {
      const hex = c.toString(16).toUpperCase().padStart(4, '0')
      return {
        p,
        what: `A raw control character (U+${hex}) in a string`,
        fix: `escape it (${ESCAPES[c] ?? `\\u${hex}`})`,
      }
    }
  }
}

/** The character at p, quoted, for a message. */
function shown(b: Buffer, p: number): string {
  const c = at(b, p)
  if (c >= 33 && c < 127) return `\`${String.fromCharCode(c)}\``
  if (c < 128) return `U+${c.toString(16).toUpperCase().padStart(4, '0')}`
  const char = String.fromCodePoint(b.toString('utf8', p, p + 4).codePointAt(0)!)
  return `\`${char}\``
}

/** Line and column (in characters, from 1) of byte offset p. */
function lineAndColumn(b: Buffer, p: number): { line: number; column: number } {
  let line = 1
  let lineStart = 0
  for (let nl = b.indexOf(10); nl >= 0 && nl < p; nl = b.indexOf(10, nl + 1)) {
    line++
    lineStart = nl + 1
  }
  let column = 1
  for (let i = lineStart; i < p; i++) if ((b[i]! & 0xc0) !== 0x80) column++
  return { line, column }
}

/**
 * Where a UTF-8 body stops being JSON, in words: what was found, at which line,
 * column and byte offset. Undefined when the body is JSON (refused for another
 * reason, such as nesting too deep to parse).
 */
export async function whereJsonFails(b: Buffer): Promise<string | undefined> {
  const bom = at(b, 0) === 0xef && at(b, 1) === 0xbb && at(b, 2) === 0xbf
  const start = ws(b, bom ? 3 : 0)
  if (start === b.length) return EMPTY_BODY
  const pacer = { pauseAt: SLICE, failedAt: undefined as number | undefined }
  const end = await paced(skip(b, start, pacer))
  let fault: Fault
  if (end !== FAIL) {
    const p = ws(b, end)
    if (p === b.length) return undefined
    fault = { p, what: `Text after the end of the JSON value (${shown(b, p)})`, fix: 'send one value' }
  } else {
    const p = pacer.failedAt ?? start
    if (p >= b.length) fault = { p, what: 'The body ends before the JSON value is complete,' }
    else if (at(b, p) === QUOTE) fault = stringFault(b, p)
    else fault = { p, what: `Unexpected ${shown(b, p)}` }
  }
  const { line, column } = lineAndColumn(b, fault.p)
  const where = `at line ${line}, column ${column} (byte offset ${fault.p})`
  return `${fault.what} ${where}${fault.fix ? `; ${fault.fix}` : ''}.`
}

/** invalid_json saying where the body stops being JSON. */
export async function invalidJson(body: Buffer): Promise<AppError> {
  // JSON that the parser still refuses: secure-json-parse's keys, or nesting past the stack.
  const hint =
    (await whereJsonFails(body)) ??
    'The body is JSON, but holds a `__proto__` or `constructor.prototype` key or nests too deeply, which is not accepted.'
  return new AppError('invalid_json', { hint })
}
