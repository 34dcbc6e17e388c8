import type { FileFacts } from '../../db/schema.ts'
import { grouped } from '../../lib/numbers.ts'

const COLOUR = { rgb: 'RGB', cmyk: 'CMYK', grey: 'greyscale', other: 'other colour model' } as const

/** What was measured of a file, a fact a line: "2 480 × 3 508 px", "RGB, profile sRGB IEC61966-2.1". */
export function factsInWords(facts: FileFacts): string[] {
  switch (facts.kind) {
    case 'raster': {
      const lines = [
        `${grouped(facts.width)} \u00d7 ${grouped(facts.height)} px (${facts.format.toUpperCase()})`,
      ]
      if (facts.density !== null) lines.push(`Declares ${Math.round(facts.density)} dpi`)
      lines.push(
        `${COLOUR[facts.colour]}${facts.icc_profile ? `, profile ${facts.icc_profile}` : ', no ICC profile'}`,
      )
      if (facts.alpha)
        lines.push(
          facts.transparent ? 'Alpha channel with transparent pixels' : 'Alpha channel, fully opaque',
        )
      if (facts.orientation !== null && facts.orientation > 1)
        lines.push(`EXIF orientation ${facts.orientation} (turned when printed)`)
      if (facts.frames > 1) lines.push(`${facts.frames} frames or pages`)
      return lines
    }
    case 'pdf': {
      const first = facts.page_boxes[0]!
      const box = (b: { width_mm: number; height_mm: number }) => `${b.width_mm} \u00d7 ${b.height_mm} mm`
      const lines = [
        `${facts.pages} ${facts.pages === 1 ? 'page' : 'pages'}`,
        `First page: MediaBox ${box(first.media)}`,
      ]
      if (first.trim) lines.push(`TrimBox ${box(first.trim)}`)
      if (first.bleed) lines.push(`BleedBox ${box(first.bleed)}`)
      const fonts = facts.fonts.embedded + facts.fonts.not_embedded.length
      if (fonts > 0) {
        lines.push(
          facts.fonts.not_embedded.length === 0
            ? `${fonts} ${fonts === 1 ? 'font' : 'fonts'}, all embedded`
            : `Fonts not embedded: ${facts.fonts.not_embedded.join(', ')}`,
        )
      }
      if (facts.colours.length > 0) lines.push(`Colours: ${facts.colours.map((c) => COLOUR[c]).join(', ')}`)
      if (facts.transparency) lines.push('Uses transparency')
      return lines
    }
    case 'vector': {
      const format = facts.format.toUpperCase()
      const size =
        facts.width_mm !== null && facts.height_mm !== null
          ? `${facts.width_mm} \u00d7 ${facts.height_mm} mm`
          : facts.aspect !== null
            ? `proportions ${Math.round(facts.aspect * 1000) / 1000} : 1, no size in real units`
            : 'no stated size'
      const lines = [`${format} drawing, ${size}`]
      if (facts.view_box) lines.push(`viewBox ${facts.view_box}`)
      return lines
    }
  }
}
