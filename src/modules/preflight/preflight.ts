import type { FileFacts, PdfFacts, PrintSpec, PrintSpecs, RasterFacts, VectorFacts } from '../../db/schema.ts'
import type { ItemVerdict } from '../../db/tables/preflight.ts'
import { grouped } from '../../lib/numbers.ts'
import {
  areaWithBleed,
  type Judgement,
  judgeAspect,
  judgeResolution,
  type Verdict,
} from '../products/preflight-formulas.ts'
import { describePrintSpec } from '../products/print-spec.ts'
import { MEASURED_TYPES } from './facts.ts'

/**
 * Preflight: a file's facts against its product's print specification
 * (docs/preflight.md). Pure: worked out when an order is shown, and by the
 * runner for the stored verdict the lists filter by.
 */

/** One check of a file: what it looked at and its verdict in a sentence. */
export interface Check extends Judgement {
  check: 'resolution' | 'shape' | 'size' | 'colour' | 'transparency' | 'pages' | 'bleed' | 'fonts' | 'frames'
}

/** A file's preflight: checked (ok, warning, problem), or why not. */
export type FileStatus = Verdict | 'not_checked' | 'pending' | 'unmeasurable'

export interface FilePreflight {
  status: FileStatus
  /** Why it was not checked, could not be measured, or is waiting. */
  reason?: string
  /** The spec it was checked against, in a line. */
  spec?: string
  checks: Check[]
}

/** A stored file's facts as the checks read them; undefined: not measured yet. */
export interface StoredFacts {
  measured: boolean
  facts: FileFacts | null
  reason: string | null
}

const RANK: Record<FileStatus, number> = {
  not_checked: 0,
  pending: 0,
  ok: 1,
  warning: 2,
  problem: 3,
  unmeasurable: 3,
}

const worst = (checks: Check[]): Verdict =>
  checks.reduce<Verdict>((w, c) => (RANK[c.verdict] > RANK[w] ? c.verdict : w), 'ok')

/** The spec a file of this role is checked against: its role's, else the product's default. */
export function specFor(specs: PrintSpecs | null, role: string | null): PrintSpec | null {
  return (role !== null ? specs?.roles[role] : undefined) ?? specs?.default ?? null
}

/** One file of an item against its product's specs. */
export function preflightFile(
  file: { role: string | null; contentType: string | null },
  product: { linked: boolean; specs: PrintSpecs | null },
  stored: StoredFacts | undefined,
): FilePreflight {
  if (!product.linked) {
    return {
      status: 'not_checked',
      reason: 'Not checked: the item’s SKU is not linked to a product.',
      checks: [],
    }
  }
  const spec = specFor(product.specs, file.role)
  if (!spec) {
    const forRole = file.role !== null && product.specs ? ` for the role “${file.role}”` : ''
    return {
      status: 'not_checked',
      reason: `Not checked: its product has no print specification${forRole}.`,
      checks: [],
    }
  }
  if (file.contentType !== null && !MEASURED_TYPES.has(file.contentType)) {
    return {
      status: 'not_checked',
      reason: `Not checked: ${file.contentType} files are not print files.`,
      checks: [],
    }
  }
  const described = describePrintSpec(spec)
  if (!stored) return { status: 'pending', reason: 'Being measured.', spec: described, checks: [] }
  if (!stored.measured || !stored.facts) {
    return {
      status: 'unmeasurable',
      reason: `Could not be measured: ${stored.reason ?? 'no reason recorded.'}`,
      spec: described,
      checks: [],
    }
  }
  const checks = checksOf(stored.facts, spec)
  return { status: worst(checks), spec: described, checks }
}

export function checksOf(facts: FileFacts, spec: PrintSpec): Check[] {
  switch (facts.kind) {
    case 'raster':
      return rasterChecks(facts, spec)
    case 'pdf':
      return pdfChecks(facts, spec)
    case 'vector':
      return vectorChecks(facts, spec)
  }
}

const COLOUR_NAME = { rgb: 'RGB', cmyk: 'CMYK', grey: 'greyscale', other: 'another colour model' } as const

function colourCheck(models: (keyof typeof COLOUR_NAME)[], spec: PrintSpec): Check[] {
  if (spec.colour === 'any') return []
  const foreign = models.filter((m) => m !== spec.colour && m !== 'grey')
  const asked = COLOUR_NAME[spec.colour]
  if (foreign.length === 0) {
    return [{ check: 'colour', verdict: 'ok', sentence: `Its colours suit ${asked} printing.` }]
  }
  const found = foreign.map((m) => COLOUR_NAME[m]).join(' and ')
  return [
    {
      check: 'colour',
      verdict: 'warning',
      sentence: `It is in ${found}; the product is printed in ${asked}: convert it, or colours shift when the printer does.`,
    },
  ]
}

function rasterChecks(facts: RasterFacts, spec: PrintSpec): Check[] {
  const pixels = { width: facts.width, height: facts.height }
  const checks: Check[] = [
    { check: 'resolution', ...pick(judgeResolution(pixels, spec)) },
    { check: 'shape', ...pick(judgeAspect(pixels, spec)) },
    ...colourCheck([facts.colour], spec),
  ]
  if (!spec.transparency) {
    checks.push(
      facts.transparent
        ? {
            check: 'transparency',
            verdict: 'problem',
            sentence: 'It has transparent pixels; the product allows none: flatten it onto its background.',
          }
        : { check: 'transparency', verdict: 'ok', sentence: 'It has no transparent pixels.' },
    )
  }
  if (facts.frames > 1) {
    checks.push({
      check: 'frames',
      verdict: 'warning',
      sentence: `It has ${grouped(facts.frames)} frames or pages; only the first is printed.`,
    })
  }
  return checks
}

const pick = (j: Judgement): Judgement => ({ verdict: j.verdict, sentence: j.sentence })
const mm = (n: number) => `${Math.round(n * 10) / 10}`

function pdfChecks(facts: PdfFacts, spec: PrintSpec): Check[] {
  const checks: Check[] = []
  if (spec.pages !== null) {
    const pages = (n: number) => `${grouped(n)} ${n === 1 ? 'page' : 'pages'}`
    checks.push(
      facts.pages === spec.pages
        ? { check: 'pages', verdict: 'ok', sentence: `It has ${pages(facts.pages)}, as asked.` }
        : {
            check: 'pages',
            verdict: 'problem',
            sentence: `It has ${pages(facts.pages)}; the product takes ${pages(spec.pages)}.`,
          },
    )
  }
  const first = facts.page_boxes[0]!
  const area = { width_mm: spec.width_mm, height_mm: spec.height_mm, bleed_mm: 0 }
  const page = first.trim ?? first.media
  // Without a TrimBox, a page the size of the area and its bleed is the area with its bleed.
  const withBleed = areaWithBleed(spec)
  const bleedIncluded =
    !first.trim &&
    spec.bleed_mm > 0 &&
    Math.abs(page.width_mm - withBleed.width) <= 1 &&
    Math.abs(page.height_mm - withBleed.height) <= 1
  const trim = bleedIncluded ? { width_mm: spec.width_mm, height_mm: spec.height_mm } : page
  const shape = judgeAspect({ width: trim.width_mm, height: trim.height_mm }, area)
  checks.push({ check: 'shape', ...pick(shape) })
  if (
    shape.verdict === 'ok' &&
    (Math.abs(trim.width_mm - spec.width_mm) > 1 || Math.abs(trim.height_mm - spec.height_mm) > 1)
  ) {
    checks.push({
      check: 'size',
      verdict: 'warning',
      sentence: `Its pages are ${mm(trim.width_mm)} \u00d7 ${mm(trim.height_mm)} mm; the print area is ${spec.width_mm} \u00d7 ${spec.height_mm} mm: it will be scaled.`,
    })
  }
  if (spec.bleed_mm > 0) {
    const outer = bleedIncluded ? page : (first.bleed ?? first.media)
    const available = Math.max(
      0,
      Math.min((outer.width_mm - trim.width_mm) / 2, (outer.height_mm - trim.height_mm) / 2),
    )
    checks.push(
      available >= spec.bleed_mm - 0.5
        ? { check: 'bleed', verdict: 'ok', sentence: `It has ${mm(available)} mm bleed.` }
        : {
            check: 'bleed',
            verdict: 'problem',
            sentence: `It has ${available > 0 ? `${mm(available)} mm` : 'no'} bleed, ${spec.bleed_mm} mm asked: extend the background ${spec.bleed_mm} mm past each edge.`,
          },
    )
  }
  checks.push(...colourCheck(facts.colours, spec))
  if (!spec.transparency && facts.transparency) {
    checks.push({
      check: 'transparency',
      verdict: 'warning',
      sentence: 'It uses transparency; the product allows none: flatten it when exporting.',
    })
  }
  if (facts.fonts.not_embedded.length > 0) {
    checks.push({
      check: 'fonts',
      verdict: 'warning',
      sentence: `Fonts not embedded: ${facts.fonts.not_embedded.join(', ')}; embed them or turn the text into outlines.`,
    })
  }
  return checks
}

function vectorChecks(facts: VectorFacts, spec: PrintSpec): Check[] {
  const checks: Check[] = [
    { check: 'resolution', verdict: 'ok', sentence: 'It is a vector drawing: it prints sharp at any size.' },
  ]
  if (facts.aspect !== null) {
    // A drawing may be meant for the area or for the area with its bleed.
    const size = { width: facts.aspect, height: 1 }
    const plain = judgeAspect(size, { ...spec, bleed_mm: 0 })
    const bled = judgeAspect(size, spec)
    checks.push({ check: 'shape', ...pick(bled.off < plain.off ? bled : plain) })
  }
  if (facts.format === 'dxf' && facts.width_mm !== null && facts.height_mm !== null) {
    const larger = facts.width_mm > spec.width_mm + 1 || facts.height_mm > spec.height_mm + 1
    checks.push(
      larger
        ? {
            check: 'size',
            verdict: 'problem',
            sentence: `Its drawing is ${mm(facts.width_mm)} \u00d7 ${mm(facts.height_mm)} mm, larger than the ${spec.width_mm} \u00d7 ${spec.height_mm} mm area.`,
          }
        : { check: 'size', verdict: 'ok', sentence: 'Its drawing fits the print area.' },
    )
  }
  return checks
}

/** An order's verdict from its files': the worst checked one (could not be measured counts as a problem). */
export function orderVerdict(files: FilePreflight[]): {
  verdict: 'ok' | 'warning' | 'problem' | 'not_checked'
  problems: number
  warnings: number
} {
  const problems = files.filter((f) => f.status === 'problem' || f.status === 'unmeasurable').length
  const warnings = files.filter((f) => f.status === 'warning').length
  const checked = files.some((f) => f.status === 'ok' || RANK[f.status] > 1)
  const verdict = problems > 0 ? 'problem' : warnings > 0 ? 'warning' : checked ? 'ok' : 'not_checked'
  return { verdict, problems, warnings }
}

/** An item's verdict as automation reads it: a file with problems (or not measurable), else one with warnings, else ok. */
export function itemVerdict(files: FilePreflight[]): ItemVerdict {
  const { verdict } = orderVerdict(files)
  return verdict === 'problem' || verdict === 'warning' ? verdict : 'ok'
}
