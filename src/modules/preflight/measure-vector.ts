import { SaxesParser } from 'saxes'
import sharp from 'sharp'
import { MEASURING_LIMITS, type Measurement, round1, type VectorFacts } from './facts.ts'

/*
 * Vector files: the size and proportions they state. SVG from its root
 * element (the stored file is the sanitized one) and a thumbnail drawn by
 * librsvg through sharp; EPS from its bounding box comment; ASCII DXF from
 * its header's extents and units.
 */

const MM_PER = { px: 25.4 / 96, pt: 25.4 / 72, pc: 25.4 / 6, in: 25.4, cm: 10, mm: 1, q: 0.25 } as const

/** An SVG length in millimetres; null for percentages, ems and anything unreadable. */
export function svgLength(value: string | undefined): number | null {
  const match = value?.trim().match(/^(\d+(?:\.\d+)?|\.\d+)(px|pt|pc|in|cm|mm|q)?$/i)
  if (!match) return null
  const unit = (match[2]?.toLowerCase() ?? 'px') as keyof typeof MM_PER
  const mm = Number(match[1]) * MM_PER[unit]
  return mm > 0 && Number.isFinite(mm) ? mm : null
}

function svgRoot(source: string): Record<string, string> | undefined {
  const parser = new SaxesParser()
  let root: Record<string, string> | undefined
  parser.on('opentag', (tag) => {
    root ??= Object.fromEntries(Object.entries(tag.attributes).map(([k, v]) => [k, String(v)]))
  })
  try {
    // The root is at the start: feed until it is found.
    for (let at = 0; at < source.length && root === undefined; at += 64 * 1024) {
      parser.write(source.slice(at, at + 64 * 1024))
    }
  } catch {
    return undefined
  }
  return root
}

export async function measureSvg(bytes: Buffer): Promise<Measurement> {
  const root = svgRoot(bytes.toString('utf8'))
  if (!root) return { ok: false, reason: 'The SVG file has no root element.' }
  const width = svgLength(root.width)
  const height = svgLength(root.height)
  const box = root.viewBox
    ?.trim()
    .split(/[\s,]+/)
    .map(Number)
  const viewBox = box?.length === 4 && box.every(Number.isFinite) && box[2]! > 0 && box[3]! > 0 ? box : null
  const aspect = width && height ? width / height : viewBox ? viewBox[2]! / viewBox[3]! : null
  const facts: VectorFacts = {
    kind: 'vector',
    format: 'svg',
    width_mm: width && height ? round1(width) : null,
    height_mm: width && height ? round1(height) : null,
    aspect,
    ...(root.viewBox ? { view_box: root.viewBox.slice(0, 100) } : {}),
  }
  // Drawn at the density that makes its longer side about twice the thumbnail's.
  const nominal = Math.max(
    width ? width / MM_PER.pt : (viewBox?.[2] ?? 100),
    height ? height / MM_PER.pt : (viewBox?.[3] ?? 100),
  )
  const density = Math.min(10_000, Math.max(1, (72 * 2 * MEASURING_LIMITS.thumbnailPx) / nominal))
  let thumbnail: Buffer | null = null
  try {
    const side = MEASURING_LIMITS.thumbnailPx
    thumbnail = await sharp(bytes, { density, limitInputPixels: MEASURING_LIMITS.megapixels * 1_000_000 })
      .resize(side, side, { fit: 'inside', withoutEnlargement: true })
      .webp({ quality: 75 })
      .toBuffer()
  } catch {
    // The facts stand without a picture.
  }
  return { ok: true, facts, thumbnail }
}

const BINARY_EPS = Buffer.from([0xc5, 0xd0, 0xd3, 0xc6])

export function measureEps(bytes: Buffer): Measurement {
  let text = bytes
  if (bytes.subarray(0, 4).equals(BINARY_EPS) && bytes.length >= 12) {
    const offset = bytes.readUInt32LE(4)
    text = bytes.subarray(offset, offset + bytes.readUInt32LE(8))
  }
  // The comments are in the header, or at the end after "(atend)".
  const ends = [text.subarray(0, 64 * 1024), text.subarray(Math.max(0, text.length - 64 * 1024))]
  const find = (label: string) => {
    for (const part of ends) {
      const match = part
        .toString('latin1')
        .match(new RegExp(`^%%${label}:\\s*(-?[\\d.]+)\\s+(-?[\\d.]+)\\s+(-?[\\d.]+)\\s+(-?[\\d.]+)`, 'm'))
      if (match) return match.slice(1, 5).map(Number)
    }
    return undefined
  }
  const box = find('HiResBoundingBox') ?? find('BoundingBox')
  if (!box?.every(Number.isFinite)) return { ok: false, reason: 'The EPS file states no bounding box.' }
  const width = Math.abs(box[2]! - box[0]!) * MM_PER.pt
  const height = Math.abs(box[3]! - box[1]!) * MM_PER.pt
  if (width === 0 || height === 0) return { ok: false, reason: 'The EPS file’s bounding box is empty.' }
  return {
    ok: true,
    thumbnail: null,
    facts: {
      kind: 'vector',
      format: 'eps',
      width_mm: round1(width),
      height_mm: round1(height),
      aspect: width / height,
    },
  }
}

/** $INSUNITS codes with a length, in millimetres. */
const DXF_UNITS: Record<number, number> = { 1: 25.4, 2: 304.8, 4: 1, 5: 10, 6: 1000, 9: 0.0254, 10: 914.4 }

export function measureDxf(bytes: Buffer): Measurement {
  if (bytes.subarray(0, 18).toString('latin1') === 'AutoCAD Binary DXF') {
    return { ok: false, reason: 'Binary DXF files are not measured; save the drawing as ASCII DXF.' }
  }
  // The header comes first; its variables are group code and value, a line each.
  const lines = bytes
    .subarray(0, 1024 * 1024)
    .toString('latin1')
    .split(/\r?\n/)
  const header = new Map<string, Map<number, number>>()
  let current: Map<number, number> | undefined
  for (let i = 0; i + 1 < lines.length; i += 2) {
    const code = Number(lines[i]!.trim())
    const value = lines[i + 1]!.trim()
    if (code === 0 && value === 'ENDSEC') break
    if (code === 9) {
      current = new Map()
      header.set(value, current)
    } else if (current) current.set(code, Number(value))
  }
  const min = header.get('$EXTMIN')
  const max = header.get('$EXTMAX')
  const dx = (max?.get(10) ?? Number.NaN) - (min?.get(10) ?? Number.NaN)
  const dy = (max?.get(20) ?? Number.NaN) - (min?.get(20) ?? Number.NaN)
  // An empty drawing's extents are ±1e20.
  if (!(dx > 0 && dy > 0 && dx < 1e19 && dy < 1e19)) {
    return { ok: false, reason: 'The DXF file states no drawing extents ($EXTMIN, $EXTMAX).' }
  }
  const unit = DXF_UNITS[header.get('$INSUNITS')?.get(70) ?? 0]
  return {
    ok: true,
    thumbnail: null,
    facts: {
      kind: 'vector',
      format: 'dxf',
      width_mm: unit ? round1(dx * unit) : null,
      height_mm: unit ? round1(dy * unit) : null,
      aspect: dx / dy,
    },
  }
}
