import sharp, { type Metadata } from 'sharp'
import { grouped } from '../../lib/numbers.ts'
import { type ColourModel, MEASURING_LIMITS, type Measurement } from './facts.ts'

/*
 * Raster files measured with sharp (libvips): the header gives the size,
 * density, colour space, profile, alpha and orientation without decoding;
 * the pixels are decoded once, shrunk on load where the format allows, for
 * the thumbnail and the transparency check. Runs in the measuring worker
 * process (facts.worker.ts), one file at a time.
 */

sharp.cache(false)
sharp.concurrency(1)

const MAX_PIXELS = MEASURING_LIMITS.megapixels * 1_000_000

const COLOUR: Record<string, ColourModel> = {
  srgb: 'rgb',
  rgb: 'rgb',
  rgb16: 'rgb',
  scrgb: 'rgb',
  cmyk: 'cmyk',
  'b-w': 'grey',
  grey16: 'grey',
}

export async function measureRaster(bytes: Buffer): Promise<Measurement> {
  let meta: Metadata
  try {
    meta = await sharp(bytes, { limitInputPixels: false }).metadata()
  } catch (err) {
    return { ok: false, reason: `The image could not be read: ${decoderMessage(err)}.` }
  }
  const { width, height } = meta.autoOrient ?? meta
  if (!width || !height) return { ok: false, reason: 'The image states no size.' }
  if (width * height > MAX_PIXELS) {
    return {
      ok: false,
      reason: `The image claims ${grouped(width)} \u00d7 ${grouped(height)} px (${grouped(Math.round((width * height) / 1e6))} megapixels); images over ${MEASURING_LIMITS.megapixels} megapixels are not measured.`,
    }
  }
  let thumbnail: Buffer
  let transparent = false
  try {
    const side = MEASURING_LIMITS.thumbnailPx
    const { data, info } = await sharp(bytes, { limitInputPixels: MAX_PIXELS, sequentialRead: true })
      .rotate()
      .resize(side, side, { fit: 'inside', withoutEnlargement: true })
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true })
    const raw = { raw: { width: info.width, height: info.height, channels: info.channels } }
    if (meta.hasAlpha) transparent = !(await sharp(data, raw).stats()).isOpaque
    thumbnail = await sharp(data, raw).webp({ quality: 75 }).toBuffer()
  } catch (err) {
    return { ok: false, reason: `The image could not be decoded: ${decoderMessage(err)}.` }
  }
  return {
    ok: true,
    thumbnail,
    facts: {
      kind: 'raster',
      format: meta.format ?? 'unknown',
      width,
      height,
      density: meta.density ?? null,
      colour: COLOUR[meta.space ?? ''] ?? 'other',
      icc_profile: meta.icc ? iccDescription(meta.icc) : null,
      alpha: meta.hasAlpha ?? false,
      transparent,
      orientation: meta.orientation ?? null,
      frames: meta.pages ?? 1,
    },
  }
}

/** libvips' message, its first line without the decoder's prefix and trailing dot. */
function decoderMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err)
  if (/failOn/.test(message)) return 'its pixel data is damaged or cut short'
  return (
    message
      .split('\n')[0]!
      .replace(/^[a-z_]+: /, '')
      .replace(/[.:\s]+$/, '')
      .slice(0, 200) || 'unknown error'
  )
}

/**
 * The description of an ICC profile (its 'desc' tag): an ASCII text in
 * version 2 profiles, the first UTF-16 record of a 'mluc' in version 4.
 */
export function iccDescription(icc: Buffer): string | null {
  if (icc.length < 132) return null
  const count = icc.readUInt32BE(128)
  for (let i = 0; i < Math.min(count, 100); i++) {
    const at = 132 + i * 12
    if (at + 12 > icc.length) return null
    if (icc.toString('latin1', at, at + 4) !== 'desc') continue
    const offset = icc.readUInt32BE(at + 4)
    const size = icc.readUInt32BE(at + 8)
    const tag = icc.subarray(offset, offset + size)
    const type = tag.toString('latin1', 0, 4)
    let text: string | undefined
    if (type === 'desc' && tag.length >= 12) {
      const length = tag.readUInt32BE(8)
      text = tag.toString('latin1', 12, 12 + Math.max(0, length - 1))
    } else if (type === 'mluc' && tag.length >= 28) {
      const length = tag.readUInt32BE(20)
      const start = tag.readUInt32BE(24)
      const utf16 = Buffer.from(tag.subarray(start, start + (length & ~1)))
      text = utf16.swap16().toString('utf16le')
    }
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
    const clean = text?.replace(/[\u0000-\u001f\u007f]/g, '').trim()
    return clean ? clean.slice(0, 100) : null
  }
  return null
}
