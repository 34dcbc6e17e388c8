import { sanitizeSvg } from './svg.ts'
import { svgComplexity } from './svg-limits.ts'

/**
 * Worker process of the SVG sanitizer pool (svg-pool.ts): one file at a time.
 * The limits are checked first, by streaming, so that a hostile file is
 * refused before any DOM is built.
 */
export type SvgResult =
  | { kind: 'ok'; svg: Uint8Array }
  | { kind: 'malformed' }
  | { kind: 'too_complex'; message: string }

const send = (result: SvgResult) => process.send!(result)

// Files arrive on stdin, each as its length (4 bytes, big-endian) and its bytes;
// answers go back over the IPC channel.
let chunks: Buffer[] = []
let received = 0
let expected: number | undefined
process.stdin.on('data', (chunk: Buffer) => {
  chunks.push(chunk)
  received += chunk.length
  for (;;) {
    if (expected === undefined && received >= 4) {
      const all = Buffer.concat(chunks)
      expected = all.readUInt32BE(0)
      chunks = [all.subarray(4)]
      received -= 4
    }
    if (expected === undefined || received < expected) return
    const all = Buffer.concat(chunks)
    const file = all.subarray(0, expected)
    chunks = [all.subarray(expected)]
    received -= expected
    expected = undefined
    sanitize(file)
  }
})

function sanitize(bytes: Buffer): void {
  const source = bytes.toString('utf8')
  const refusal = svgComplexity(source)
  if (refusal !== undefined) {
    send({ kind: 'too_complex', message: refusal })
    return
  }
  const sanitized = sanitizeSvg(source)
  if (sanitized === undefined) {
    send({ kind: 'malformed' })
    return
  }
  send({ kind: 'ok', svg: new TextEncoder().encode(sanitized) })
}
