/**
 * JSON tokens read straight from a body's UTF-8 bytes, for body-scan.ts.
 * Positions are byte offsets; FAIL marks text that is not JSON.
 */

export const FAIL = -1

export const QUOTE = 34
export const COMMA = 44
export const COLON = 58
export const OPEN_BRACE = 123
export const CLOSE_BRACE = 125
export const OPEN_BRACKET = 91
export const CLOSE_BRACKET = 93
const BACKSLASH = 92
const MINUS = 45

/** Bytes scanned between two yields of skip() (256 KB), so a long body never holds the event loop for long. */
export const SLICE = 1 << 18

/** The byte at p; -1 past the end (never an out-of-bounds read, which slows V8's code for good). */
export const at = (b: Buffer, p: number): number => (p < b.length ? b[p]! : -1)
const isWs = (c: number) => c === 32 || c === 10 || c === 13 || c === 9
const isDigit = (c: number) => c >= 48 && c <= 57
const isHex = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102)
// What may follow a backslash: " \ / b f n r t u
const ESCAPE = new Uint8Array(256)
for (const c of '"\\/bfnrtu') ESCAPE[c.charCodeAt(0)] = 1

export function ws(b: Buffer, p: number): number {
  while (isWs(at(b, p))) p++
  return p
}

/** End of the string at p. `check`: verify its contents too (JSON.parse will not see them). */
export function string(b: Buffer, p: number, check: boolean): number {
  p++
  if (!check) {
    // Usually the next quote ends it; if that one is escaped, go byte by byte
    // (millions of escaped quotes would otherwise mean millions of searches).
    const q = b.indexOf(QUOTE, p)
    if (q < 0) return FAIL
    if (at(b, q - 1) !== BACKSLASH) return q + 1
    for (;;) {
      const c = at(b, p)
      if (c === QUOTE) return p + 1
      if (c < 0) return FAIL
      p += c === BACKSLASH ? 2 : 1
    }
  }
  for (;;) {
    const c = at(b, p)
    if (c === QUOTE) return p + 1
    if (c === BACKSLASH) {
      const e = at(b, p + 1)
      if (e < 0 || !ESCAPE[e]) return FAIL
      if (e === 117) {
        for (let i = 2; i < 6; i++) if (!isHex(at(b, p + i))) return FAIL
        p += 6
      } else p += 2
    } else if (c >= 32) p++
    else return FAIL // a control character, or the end of the body
  }
}

/** Strings up to this long are checked in one go; longer ones in slices. */
const SHORT = 4096

/** End of a string of any length at p, read in slices. */
export function* longString(b: Buffer, p: number, pacer: Pacer, check: boolean): Generator<void, number> {
  pacer.pauseAt = Math.min(pacer.pauseAt, p + SLICE) // a second pass over the same bytes
  p++
  for (;;) {
    if (p >= pacer.pauseAt) {
      yield
      pacer.pauseAt = p + SLICE
    }
    const c = at(b, p)
    if (c === QUOTE) return p + 1
    if (c === BACKSLASH) {
      const e = at(b, p + 1)
      if (check && (e < 0 || !ESCAPE[e])) return FAIL
      if (check && e === 117) {
        for (let i = 2; i < 6; i++) if (!isHex(at(b, p + i))) return FAIL
        p += 6
      } else p += 2
    } else if (c >= 32 || (c >= 0 && !check)) p++
    else return FAIL
  }
}

/** End of the string at p: at once when its closing quote is plain to find, else in slices. */
export function* stringAt(b: Buffer, p: number, pacer: Pacer, check: boolean): Generator<void, number> {
  const q = b.indexOf(QUOTE, p + 1)
  if (q < 0) return FAIL
  if (at(b, q - 1) !== BACKSLASH) {
    if (!check) return q + 1
    if (q - p <= SHORT) return string(b, p, true)
  }
  return yield* longString(b, p, pacer, check)
}

function digits(b: Buffer, p: number): number {
  if (!isDigit(at(b, p))) return FAIL
  while (isDigit(at(b, p))) p++
  return p
}

function number(b: Buffer, p: number): number {
  if (at(b, p) === MINUS) p++
  p = at(b, p) === 48 ? p + 1 : digits(b, p)
  if (p !== FAIL && at(b, p) === 46) p = digits(b, p + 1)
  if (p !== FAIL && (at(b, p) === 101 || at(b, p) === 69)) {
    p++
    if (at(b, p) === 43 || at(b, p) === MINUS) p++
    p = digits(b, p)
  }
  return p
}

const WORDS = new Map([116, 102, 110].map((c, i) => [c, Buffer.from(['true', 'false', 'null'][i]!)]))

/** End of the string, number or literal at p. */
export function scalar(b: Buffer, p: number, check: boolean): number {
  const c = at(b, p)
  if (c === QUOTE) return string(b, p, check)
  if (c === MINUS || isDigit(c)) return number(b, p)
  const word = WORDS.get(c)
  if (!word) return FAIL
  for (let i = 1; i < word.length; i++) if (at(b, p + i) !== word[i]) return FAIL
  return p + word.length
}

/** stringAt(…, true), with the common short string handled without a generator. */
function* checkedString(b: Buffer, p: number, pacer: Pacer): Generator<void, number> {
  const q = b.indexOf(QUOTE, p + 1)
  if (q > 0 && q - p <= SHORT && b[q - 1] !== BACKSLASH) return string(b, p, true)
  return yield* longString(b, p, pacer, true)
}

// States of skip(): what the next token must be.
const VALUE = 0
const FIRST_VALUE = 1 // a value or ] right after [
const KEY = 2
const FIRST_KEY = 3 // a key or } right after {
const COLON_NEXT = 4
const AFTER = 5 // , or the close of the innermost container

/** Where a scan pauses next (a byte offset), and where skip() last found text that is not JSON. */
export interface Pacer {
  pauseAt: number
  failedAt?: number
}

function fail(pacer: Pacer, at: number): number {
  pacer.failedAt = at
  return FAIL
}

/**
 * End of one JSON value of any depth at p, checked, without recursion: one flat
 * loop over the tokens, as this is where a hostile body's millions of values
 * go. Yields after every SLICE bytes. With `open` ({ or [), p is at an entry
 * inside such a container instead, and the end is just past its close.
 */
export function* skip(b: Buffer, p: number, pacer: Pacer, open = 0): Generator<void, number> {
  const n = b.length
  let stack = new Uint8Array(64)
  let depth = 0
  let state = VALUE
  if (open) {
    stack[depth++] = open
    state = open === OPEN_BRACE ? KEY : VALUE
  }
  while (p < n) {
    if (p >= pacer.pauseAt) {
      yield
      pacer.pauseAt = p + SLICE
    }
    const c = b[p]!
    if (isWs(c)) {
      p++
    } else if (state === AFTER) {
      const top = stack[depth - 1]!
      p++
      if (c === COMMA) state = top === OPEN_BRACE ? KEY : VALUE
      else if (c !== top + 2)
        return fail(pacer, p - 1) // } is { + 2, ] is [ + 2
      else if (--depth === 0) return p
    } else if (state === KEY || state === FIRST_KEY) {
      if (c === QUOTE) {
        const start = p
        p = yield* checkedString(b, p, pacer)
        if (p === FAIL) return fail(pacer, start)
        state = COLON_NEXT
      } else if (c === CLOSE_BRACE && state === FIRST_KEY) {
        p++
        if (--depth === 0) return p
        state = AFTER
      } else return fail(pacer, p)
    } else if (state === COLON_NEXT) {
      if (c !== COLON) return fail(pacer, p)
      p++
      state = VALUE
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (depth === stack.length) {
        const grown = new Uint8Array(stack.length * 2)
        grown.set(stack)
        stack = grown
      }
      stack[depth++] = c
      p++
      state = c === OPEN_BRACE ? FIRST_KEY : FIRST_VALUE
    } else if (c === CLOSE_BRACKET && state === FIRST_VALUE) {
      p++
      if (--depth === 0) return p
      state = AFTER
    } else {
      // Plain integers inline (the commonest filler); anything else in full.
      const start = p
      if (c >= 49 && c <= 57) {
        do p++
        while (p < n && isDigit(b[p]!))
        const d = at(b, p)
        if (d === 46 || d === 101 || d === 69) p = number(b, start)
      } else if (c === QUOTE) p = yield* checkedString(b, p, pacer)
      else p = scalar(b, p, true)
      if (p === FAIL) return fail(pacer, start)
      if (depth === 0) return p
      state = AFTER
    }
  }
  return fail(pacer, n)
}
