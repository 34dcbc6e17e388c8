import { readFrames } from '../../lib/worker-process.ts'
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

// Files arrive on stdin; answers go back over the IPC channel (lib/worker-process.ts).
readFrames(sanitize)

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
