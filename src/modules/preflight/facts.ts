import type { FileFacts } from '../../db/schema.ts'

/**
 * What a production file is, measured once after an order references it
 * (measure.ts, in a worker process of measuring.ts), and stored in
 * file_facts.facts. Sizes are in pixels for rasters and in millimetres
 * (rounded to 0.1) for everything else.
 */

export type {
  ColourModel,
  FileFacts,
  PdfBox,
  PdfFacts,
  PdfPageFacts,
  RasterFacts,
  VectorFacts,
} from '../../db/schema.ts'

/** What measuring one file gives: its facts and thumbnail, or why it could not be measured. */
export type Measurement =
  | { ok: true; facts: FileFacts; thumbnail: Uint8Array | null }
  | { ok: false; reason: string }

/** Files of these types are measured; the others (ZIP, text, CSV) are not print files. */
export const MEASURED_TYPES = new Set([
  'image/png',
  'image/jpeg',
  'image/webp',
  'image/gif',
  'image/tiff',
  'image/bmp',
  'image/heic',
  'image/heif',
  'image/avif',
  'image/svg+xml',
  'application/pdf',
  'application/postscript',
  'application/dxf',
])

/** Limits of measuring, stated by docs/preflight.md. */
export const MEASURING_LIMITS = {
  /** Rasters claiming more pixels are not decoded (a 50 MB PNG can claim 10 billion). */
  megapixels: 250,
  /** PDF pages whose boxes, fonts and colours are read; the pages are all counted. */
  pdfPages: 50,
  /** The longest side of a thumbnail, in pixels. */
  thumbnailPx: 320,
  /** One file's wall-clock time in the worker. */
  timeLimitMs: 30_000,
  /** The worker's heap. */
  memoryLimitMb: 512,
} as const

export const round1 = (n: number) => Math.round(n * 10) / 10
