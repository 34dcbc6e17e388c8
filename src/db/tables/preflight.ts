import type { ColumnType } from 'kysely'
import type { Environment, Json } from './common.ts'

/*
 * Preflight (migration 0036, module preflight): what each production file is,
 * the orders waiting to be checked, and each checked order's verdict.
 */

/** The colour model a file or a part of it is in. */
export type ColourModel = 'rgb' | 'cmyk' | 'grey' | 'other'

export interface RasterFacts {
  kind: 'raster'
  /** As libvips names it: png, jpeg, webp, gif, tiff, bmp, heif, avif. */
  format: string
  /** The size as the image is shown, its EXIF orientation applied. */
  width: number
  height: number
  /** The density the file declares (pixels per inch), if any. */
  density: number | null
  colour: ColourModel
  /** The ICC profile's description, if one is embedded. */
  icc_profile: string | null
  /** Whether it has an alpha channel, and whether any pixel is less than opaque. */
  alpha: boolean
  transparent: boolean
  /** The EXIF orientation (1 to 8), if the file has one. */
  orientation: number | null
  /** Frames or pages (animations, multi-page TIFF). */
  frames: number
}

export interface PdfBox {
  width_mm: number
  height_mm: number
}

export interface PdfPageFacts {
  media: PdfBox
  /** The boxes the page declares; null when it declares none. */
  trim: PdfBox | null
  bleed: PdfBox | null
}

export interface PdfFacts {
  kind: 'pdf'
  pages: number
  /** The first pages' boxes (at most preflight's MEASURING_LIMITS.pdfPages). */
  page_boxes: PdfPageFacts[]
  /** Fonts used by the measured pages: how many are embedded, and the names of those that are not. */
  fonts: { embedded: number; not_embedded: string[] }
  /** Colour models of the measured pages' images and colour spaces. */
  colours: ColourModel[]
  /** Whether the measured pages use transparency (soft masks, or opacity below 1). */
  transparency: boolean
}

export interface VectorFacts {
  kind: 'vector'
  format: 'svg' | 'eps' | 'dxf'
  /** The drawing's size when the file states it in real units; null when it states none. */
  width_mm: number | null
  height_mm: number | null
  /** The drawing's proportions (SVG viewBox, EPS bounding box, DXF extents). */
  aspect: number | null
  /** SVG only: its viewBox, as written. */
  view_box?: string
}

export type FileFacts = RasterFacts | PdfFacts | VectorFacts

/** The facts of a file an order references, measured once (preflight/measure.ts). */
export interface FileFactsTable {
  upload_id: string
  organization_id: string
  /** False: it could not be measured (reason says why), or is not a print file. */
  measured: boolean
  facts: Json<FileFacts> | null
  reason: string | null
  /** Where its thumbnail (WebP) is stored, if one was made. */
  thumbnail_key: string | null
  measured_at: Date
}

/** Orders whose files wait to be measured, or whose verdict to be worked out again. */
export interface PreflightQueueTable {
  order_id: string
  organization_id: string
  queued_at: Date
  claimed_until: Date | null
  attempts: number
}

export type PreflightVerdict = 'ok' | 'warning' | 'problem' | 'not_checked'

/** A checked order's verdict: its worst file's, and how many problems and warnings. */
export interface OrderPreflightTable {
  order_id: string
  organization_id: string
  environment: Environment
  verdict: PreflightVerdict
  problems: number
  warnings: number
  checked_at: Date
  /** Each item's verdict (its worst file's, not measurable counting as a problem), in position order (migration 0037). */
  items: ColumnType<ItemVerdict[] | null, string | null | undefined, string | null>
}

/** An item's files as automation reads them: problems, only warnings, or neither. */
export type ItemVerdict = 'problem' | 'warning' | 'ok'
