import type { Readable } from 'node:stream'

/** Characters of a response body the delivery log keeps. */
export const SNIPPET_CHARS = 1024

/** The first `n` characters (code points, so a pair of surrogates stays whole). */
export function firstChars(text: string, n: number): string {
  if (text.length <= n) return text
  let units = 0
  for (let count = 0; count < n && units < text.length; count++) {
    units += text.codePointAt(units)! > 0xffff ? 2 : 1
  }
  return text.slice(0, units)
}

/**
 * The beginning of a response body, for the delivery log: its first
 * SNIPPET_CHARS characters, decoded as a whole (a character split across
 * chunks stays whole), NUL replaced by U+FFFD (PostgreSQL text holds no NUL);
 * null for an empty body. A body cut off after the status arrived does not
 * change the verdict: what came is kept.
 */
export function readSnippet(body: Readable): Promise<string | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let bytes = 0
    const finish = () => {
      body.destroy()
      if (bytes === 0) return resolve(null)
      const text = firstChars(Buffer.concat(chunks).toString('utf8'), SNIPPET_CHARS)
      resolve(text.replaceAll('\u0000', '\uFFFD'))
    }
    body.on('data', (chunk: Buffer) => {
      chunks.push(chunk)
      bytes += chunk.length
      // Four bytes hold any character: enough bytes for SNIPPET_CHARS of them.
      if (bytes >= SNIPPET_CHARS * 4) finish()
    })
    body.once('end', finish)
    body.once('error', finish)
  })
}
