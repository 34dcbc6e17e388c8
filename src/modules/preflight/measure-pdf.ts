import {
  ParseSpeeds,
  PDFArray,
  PDFDict,
  PDFDocument,
  PDFName,
  PDFNumber,
  type PDFObject,
  PDFRef,
  PDFStream,
} from '@cantoo/pdf-lib'
import { type ColourModel, MEASURING_LIMITS, type Measurement, type PdfBox, round1 } from './facts.ts'

/*
 * PDFs measured with pdf-lib: the pages counted, and the first pages' boxes,
 * fonts, colour spaces and transparency read from their own resources
 * (objects inside form XObjects are not followed). A page tree that loops, or
 * a file that costs too much, is stopped by the worker's time and memory limits.
 */

const MM_PER_POINT = 25.4 / 72
const name = (key: string) => PDFName.of(key)

export async function measurePdf(bytes: Buffer): Promise<Measurement> {
  let doc: PDFDocument
  try {
    doc = await PDFDocument.load(bytes, {
      ignoreEncryption: true,
      updateMetadata: false,
      throwOnInvalidObject: false,
      parseSpeed: ParseSpeeds.Fastest,
    })
  } catch (err) {
    return { ok: false, reason: `The PDF could not be read: ${firstLine(err)}.` }
  }
  let pages: ReturnType<PDFDocument['getPages']>
  try {
    pages = doc.getPages()
  } catch (err) {
    return { ok: false, reason: `The PDF's pages could not be read: ${firstLine(err)}.` }
  }
  if (pages.length === 0) return { ok: false, reason: 'The PDF has no pages.' }
  const colours = new Set<ColourModel>()
  const fonts = { embedded: 0, notEmbedded: new Set<string>() }
  const seenFonts = new Set<string>()
  let transparency = false
  const page_boxes = pages.slice(0, MEASURING_LIMITS.pdfPages).map((page) => {
    const node = page.node
    const resources = node.Resources()
    if (resources) {
      readFonts(resources, fonts, seenFonts)
      if (readColours(resources, colours)) transparency = true
    }
    if (node.lookupMaybe(name('Group'), PDFDict)?.get(name('S'))?.toString() === '/Transparency') {
      transparency = true
    }
    const box = (b: { width: number; height: number }): PdfBox => ({
      width_mm: round1(Math.abs(b.width) * MM_PER_POINT),
      height_mm: round1(Math.abs(b.height) * MM_PER_POINT),
    })
    return {
      media: box(page.getMediaBox()),
      trim: node.get(name('TrimBox')) ? box(page.getTrimBox()) : null,
      bleed: node.get(name('BleedBox')) ? box(page.getBleedBox()) : null,
    }
  })
  return {
    ok: true,
    thumbnail: null,
    facts: {
      kind: 'pdf',
      pages: pages.length,
      page_boxes,
      fonts: { embedded: fonts.embedded, not_embedded: [...fonts.notEmbedded].slice(0, 20) },
      colours: [...colours].sort(),
      transparency,
    },
  }
}

function firstLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err)
  return message.split('\n')[0]!.replace(/\.$/, '').slice(0, 200) || 'unknown error'
}

function dict(value: PDFObject | undefined, context: PDFDict): PDFDict | undefined {
  const resolved = value instanceof PDFRef ? context.context.lookup(value) : value
  if (resolved instanceof PDFDict) return resolved
  if (resolved instanceof PDFStream) return resolved.dict
  return undefined
}

function readFonts(
  resources: PDFDict,
  fonts: { embedded: number; notEmbedded: Set<string> },
  seen: Set<string>,
): void {
  const all = resources.lookupMaybe(name('Font'), PDFDict)
  if (!all) return
  for (const [, ref] of all.entries()) {
    const key = ref.toString()
    if (seen.has(key)) continue
    seen.add(key)
    const font = dict(ref, all)
    if (!font) continue
    const subtype = font.get(name('Subtype'))?.toString()
    // Type 3 glyphs are drawn by the PDF itself.
    if (subtype === '/Type3') {
      fonts.embedded += 1
      continue
    }
    let described = font
    if (subtype === '/Type0') {
      const descendants = font.lookupMaybe(name('DescendantFonts'), PDFArray)
      described = (descendants && dict(descendants.get(0), font)) ?? font
    }
    const descriptor = dict(described.get(name('FontDescriptor')), described)
    const embedded = ['FontFile', 'FontFile2', 'FontFile3'].some((k) => descriptor?.get(name(k)))
    if (embedded) fonts.embedded += 1
    else fonts.notEmbedded.add((font.get(name('BaseFont'))?.toString() ?? '/unnamed').slice(1, 80))
  }
}

function colourOf(space: PDFObject | undefined, context: PDFDict): ColourModel | undefined {
  const resolved = space instanceof PDFRef ? context.context.lookup(space) : space
  if (resolved instanceof PDFName) {
    const n = resolved.toString()
    if (n === '/DeviceRGB' || n === '/CalRGB') return 'rgb'
    if (n === '/DeviceCMYK') return 'cmyk'
    if (n === '/DeviceGray' || n === '/CalGray') return 'grey'
    return undefined
  }
  if (resolved instanceof PDFArray) {
    const family = resolved.get(0)?.toString()
    if (family === '/ICCBased') {
      const n = dict(resolved.get(1), context)?.get(name('N'))
      const components = n instanceof PDFNumber ? n.asNumber() : 0
      return components === 4 ? 'cmyk' : components === 3 ? 'rgb' : components === 1 ? 'grey' : 'other'
    }
    if (family === '/Indexed') return colourOf(resolved.get(1), context)
    if (family === '/CalRGB') return 'rgb'
    if (family === '/CalGray') return 'grey'
    // Separation, DeviceN (spot colours), Lab, Pattern.
    return 'other'
  }
  return undefined
}

/** Adds the colour models of a page's colour spaces and images; true when they use transparency. */
function readColours(resources: PDFDict, colours: Set<ColourModel>): boolean {
  let transparency = false
  const spaces = resources.lookupMaybe(name('ColorSpace'), PDFDict)
  for (const [, space] of spaces?.entries() ?? []) {
    const model = colourOf(space, resources)
    if (model) colours.add(model)
  }
  const objects = resources.lookupMaybe(name('XObject'), PDFDict)
  for (const [, ref] of objects?.entries() ?? []) {
    const object = dict(ref, objects!)
    if (object?.get(name('Subtype'))?.toString() !== '/Image') continue
    const model = colourOf(object.get(name('ColorSpace')), object)
    if (model) colours.add(model)
    if (object.get(name('SMask'))) transparency = true
  }
  const states = resources.lookupMaybe(name('ExtGState'), PDFDict)
  for (const [, ref] of states?.entries() ?? []) {
    const state = dict(ref, states!)
    if (!state) continue
    for (const key of ['CA', 'ca']) {
      const alpha = state.get(name(key))
      if (alpha instanceof PDFNumber && alpha.asNumber() < 1) transparency = true
    }
    const mask = state.get(name('SMask'))
    if (mask && mask.toString() !== '/None') transparency = true
  }
  return transparency
}
