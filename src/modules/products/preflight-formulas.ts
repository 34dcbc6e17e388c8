import type { PrintSpec } from '../../db/schema.ts'
import { grouped } from '../../lib/numbers.ts'

/**
 * How a file's measured size is judged against a print specification
 * (docs/preflight.md#the-formulas): pure arithmetic, checked against figures
 * worked out by hand in test/modules/products/preflight-formulas.unit.test.ts.
 */

export const MM_PER_INCH = 25.4

/** Below the spec's dpi but at least this share of it: a warning; lower: a problem. */
export const DPI_WARNING_SHARE = 2 / 3

/** An aspect ratio within this of the area's fits; within the second, it is cropped visibly (a warning). */
export const ASPECT_TOLERANCE = { fits: 0.02, crops: 0.1 } as const

export type Verdict = 'ok' | 'warning' | 'problem'

export interface Judgement {
  verdict: Verdict
  /** What was found and, unless ok, what to do, in a sentence. */
  sentence: string
}

/** The print area with its bleed on each side, in millimetres. */
export function areaWithBleed(spec: Pick<PrintSpec, 'width_mm' | 'height_mm' | 'bleed_mm'>) {
  return { width: spec.width_mm + 2 * spec.bleed_mm, height: spec.height_mm + 2 * spec.bleed_mm }
}

/**
 * The resolution a raster of this size prints at when scaled to cover the
 * area (bleed included): the smaller of the two directions' pixels per inch.
 */
export function effectiveDpi(
  pixels: { width: number; height: number },
  spec: Pick<PrintSpec, 'width_mm' | 'height_mm' | 'bleed_mm'>,
): number {
  const area = areaWithBleed(spec)
  return Math.min(pixels.width / (area.width / MM_PER_INCH), pixels.height / (area.height / MM_PER_INCH))
}

/** The least pixels that print the area (bleed included) at the spec's dpi. */
export function requiredPixels(spec: Pick<PrintSpec, 'width_mm' | 'height_mm' | 'bleed_mm' | 'min_dpi'>) {
  const area = areaWithBleed(spec)
  // A hair below the next whole pixel is that pixel: 3507.9999 is 3508, not 3509.
  const at = (mm: number) => Math.ceil(Number(((mm / MM_PER_INCH) * spec.min_dpi).toFixed(6)))
  return { width: at(area.width), height: at(area.height) }
}

/** "Upload at least 2 481 × 3 508 px for 420 × 594 mm at 150 dpi." */
export function pixelsAdvice(
  spec: Pick<PrintSpec, 'width_mm' | 'height_mm' | 'bleed_mm' | 'min_dpi'>,
): string {
  const px = requiredPixels(spec)
  const area = areaWithBleed(spec)
  const bleed =
    spec.bleed_mm > 0 ? ` (${spec.width_mm} \u00d7 ${spec.height_mm} mm and ${spec.bleed_mm} mm bleed)` : ''
  return `Upload at least ${grouped(px.width)} \u00d7 ${grouped(px.height)} px for ${area.width} \u00d7 ${area.height} mm${bleed} at ${spec.min_dpi} dpi.`
}

/** The resolution verdict: ok at the spec's dpi or more, a warning down to two thirds of it, else a problem. */
export function judgeResolution(
  pixels: { width: number; height: number },
  spec: Pick<PrintSpec, 'width_mm' | 'height_mm' | 'bleed_mm' | 'min_dpi'>,
): Judgement & { dpi: number } {
  const dpi = Math.floor(effectiveDpi(pixels, spec))
  const found = `${grouped(pixels.width)} \u00d7 ${grouped(pixels.height)} px prints at ${dpi} dpi`
  if (dpi >= spec.min_dpi) return { verdict: 'ok', dpi, sentence: `${found}.` }
  const verdict = dpi >= spec.min_dpi * DPI_WARNING_SHARE ? 'warning' : 'problem'
  return { verdict, dpi, sentence: `${found}, ${spec.min_dpi} asked. ${pixelsAdvice(spec)}` }
}

/**
 * The shape verdict: the file's width-to-height ratio against the area's
 * (bleed included); a file turned a quarter is not assumed to be meant so.
 */
export function judgeAspect(
  size: { width: number; height: number },
  spec: Pick<PrintSpec, 'width_mm' | 'height_mm' | 'bleed_mm'>,
): Judgement & { off: number } {
  const area = areaWithBleed(spec)
  const off = Math.abs(size.width / size.height / (area.width / area.height) - 1)
  const percent = Math.round(Number((off * 100).toFixed(6)))
  if (off <= ASPECT_TOLERANCE.fits) return { verdict: 'ok', off, sentence: 'Its shape fits the print area.' }
  const shape = `Its shape is ${percent}% off the print area's (${area.width} \u00d7 ${area.height} mm)`
  if (off <= ASPECT_TOLERANCE.crops) {
    return { verdict: 'warning', off, sentence: `${shape}: it will be cropped to fill it.` }
  }
  return { verdict: 'problem', off, sentence: `${shape}: make it in the area's proportions.` }
}
