export const REDACTED = 'REDACTED'

/**
 * Secrets by their form, wherever they appear in a text: API keys, webhook
 * secrets (ours and Standard Webhooks' base64 ones), bearer tokens, URL
 * passwords, and the values of query parameters that are secrets (the
 * signature of a signed upload URL, S3's X-Amz-Signature, -Credential,
 * -Security-Token, any token, key, secret or password a client puts in a URL).
 * Group 1, the end of each match, is replaced; what leads to it stays as written.
 */
const SECRET_FORMS: RegExp[] = [
  /\bsvc_(?:test|live)_([0-9A-Za-z]+)/g,
  /\bwhsec_([\w+/=-]+)/g,
  /\bBearer\s+([^\s"]{8,})/gi,
  /\/\/[^/:@\s"]*:([^/@\s"]+)(?=@)/g,
  /[?&][^=&\s"]*(?:signature|token|secret|password|credential|key)=([^&\s"#]*)/gi,
]

/**
 * The escapes a client can write any character of a secret with: JSON's
 * `\uXXXX` and `\/` and URL encoding (`%5F`). A text holding one is also
 * searched decoded (with JSON's other escapes, so `\\u005f` stays text). A
 * `+` for a space is left alone: no secret form holds a space, and reading `+`
 * as one would end a base64 bearer token early. Known secrets holding `"`,
 * `\` or a control character are also looked for as JSON writes them.
 */
const ESCAPE = /\\u([0-9a-fA-F]{4})|\\(["\\/bfnrt])|%([0-7][0-9a-fA-F])/g
const SHORT_ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
}

/** Known secrets shorter than this are not looked for: they would replace innocent text. */
const SHORTEST_SECRET = 8

/** A stretch of a text to replace: [start, end), UTF-16 indices. */
export type Span = [number, number]

/**
 * The text with its escapes decoded, and where an index of it lies in the
 * text (found from where each decoded escape is and how far the text is
 * ahead after it).
 */
function decoded(text: string): { plain: string; toText: (i: number) => number } | undefined {
  const pieces: string[] = []
  const at: number[] = []
  const ahead: number[] = []
  let from = 0
  let shift = 0
  let telling = false
  for (const m of text.matchAll(ESCAPE)) {
    pieces.push(text.slice(from, m.index))
    const [written, unicode, short, percent] = m
    const hex = unicode ?? percent
    telling ||= hex !== undefined || short === '/'
    pieces.push(hex ? String.fromCharCode(Number.parseInt(hex, 16)) : SHORT_ESCAPES[short!]!)
    at.push(m.index - shift)
    shift += written.length - 1
    ahead.push(shift)
    from = m.index + written.length
  }
  // Only `"`, `\` or control characters escaped: the text as written tells as much.
  if (!telling) return undefined
  pieces.push(text.slice(from))
  const toText = (i: number) => {
    // The last escape before i decides how far ahead the text is.
    let low = 0
    let high = at.length
    while (low < high) {
      const mid = (low + high) >>> 1
      if (at[mid]! < i) low = mid + 1
      else high = mid
    }
    return low === 0 ? i : i + ahead[low - 1]!
  }
  return { plain: pieces.join(''), toText }
}

function collect(view: string, secrets: string[], spans: Span[], toText?: (i: number) => number): void {
  const place = (start: number, end: number) =>
    spans.push(toText ? [toText(start), toText(end)] : [start, end])
  for (const form of SECRET_FORMS) {
    // exec, not matchAll: matchAll copies the pattern on every call (a log line each).
    form.lastIndex = 0
    for (let m = form.exec(view); m; m = form.exec(view)) place(form.lastIndex - m[1]!.length, form.lastIndex)
  }
  for (const secret of secrets) {
    for (let i = view.indexOf(secret); i >= 0; i = view.indexOf(secret, i + secret.length)) {
      place(i, i + secret.length)
    }
  }
}

/**
 * Where a text holds secrets, by their form or by their value, as written or
 * escaped: sorted, overlapping ones merged. The text is searched as written
 * (`%26` in a query value is data, not a separator) and, if it holds an
 * escape, decoded too: each secret either reading finds is replaced.
 */
export function secretSpans(text: string, secrets: string[] = []): Span[] {
  const known = secrets
    .filter((s) => s.length >= SHORTEST_SECRET)
    .flatMap((s) => {
      const written = JSON.stringify(s).slice(1, -1)
      return written === s ? [s] : [s, written]
    })
  const spans: Span[] = []
  collect(text, known, spans)
  const plain = text.includes('\\') || text.includes('%') ? decoded(text) : undefined
  if (plain) collect(plain.plain, known, spans, plain.toText)
  spans.sort((a, b) => a[0] - b[0] || a[1] - b[1])
  const merged: Span[] = []
  for (const span of spans) {
    const last = merged.at(-1)
    if (last && span[0] <= last[1]) last[1] = Math.max(last[1], span[1])
    else merged.push([span[0], span[1]])
  }
  return merged
}

/**
 * The text with its spans replaced, up to index `until` of the text (a span
 * reaching past it is replaced whole, what follows is left out).
 */
export function replaceSpans(text: string, spans: Span[], until = text.length): string {
  const pieces: string[] = []
  let from = 0
  for (const [start, end] of spans) {
    if (start > until || (start === until && until < text.length)) break
    pieces.push(text.slice(from, start), REDACTED)
    from = end
  }
  if (from < until) pieces.push(text.slice(from, until))
  return pieces.join('')
}

/** Replaces every secret in a log line (a JSON string), URL or body. */
export function redactSecrets(text: string, secrets: string[] = []): string {
  return replaceSpans(text, secretSpans(text, secrets))
}
