import { parentPort } from 'node:worker_threads'
import { sanitizeSvg } from './svg.ts'
import { svgComplexity } from './svg-limits.ts'

/**
 * Worker thread of the SVG sanitizer pool (svg-pool.ts): one file at a time.
 * The limits are checked first, by streaming, so that a hostile file is
 * refused before any DOM is built.
 */
export type SvgResult =
  | { kind: 'ok'; svg: Uint8Array }
  | { kind: 'malformed' }
  | { kind: 'too_complex'; message: string }

const port = parentPort!
port.on('message', (bytes: Uint8Array) => {
  const source = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')
  const refusal = svgComplexity(source)
  if (refusal !== undefined) {
    port.postMessage({ kind: 'too_complex', message: refusal } satisfies SvgResult)
    return
  }
  const sanitized = sanitizeSvg(source)
  if (sanitized === undefined) {
    port.postMessage({ kind: 'malformed' } satisfies SvgResult)
    return
  }
  const svg = new TextEncoder().encode(sanitized)
  port.postMessage({ kind: 'ok', svg } satisfies SvgResult, [svg.buffer])
})
