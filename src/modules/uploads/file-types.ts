import { fileTypeFromBuffer } from 'file-type'

/**
 * Content detection for production files, from the first bytes only (never the
 * name or the Content-Type the client sent). Binary formats come from
 * `file-type`; the text formats it does not cover (SVG, ASCII DXF, PostScript,
 * plain text and CSV) are recognised here.
 */
export const HEAD_BYTES = 64 * 1024

export type Detection =
  | { kind: 'allowed'; contentType: AllowedType }
  | { kind: 'not_allowed'; detected: string }
  | { kind: 'unrecognized' }

export const ALLOWED_TYPES = [
  'image/png',
  'image/jpeg',
  'image/webp',
  'image/gif',
  'image/svg+xml',
  'image/tiff',
  'image/bmp',
  'image/heic',
  'image/heif',
  'image/avif',
  'application/pdf',
  'application/dxf',
  'application/postscript',
  'application/zip',
  'text/plain',
  'text/csv',
] as const
export type AllowedType = (typeof ALLOWED_TYPES)[number]

/** file-type's answer for the allowed formats, mapped onto the reference's table. */
const FROM_FILE_TYPE: Record<string, AllowedType> = {
  'image/png': 'image/png',
  'image/apng': 'image/png',
  'image/jpeg': 'image/jpeg',
  'image/webp': 'image/webp',
  'image/gif': 'image/gif',
  'image/tiff': 'image/tiff',
  'image/bmp': 'image/bmp',
  'image/heic': 'image/heic',
  'image/heic-sequence': 'image/heic',
  'image/heif': 'image/heif',
  'image/heif-sequence': 'image/heif',
  'image/avif': 'image/avif',
  // PDF-based Illustrator files are PDFs.
  'application/pdf': 'application/pdf',
  'application/postscript': 'application/postscript',
  // Binary EPS (DOS header) and PostScript-based Illustrator files.
  'application/eps': 'application/postscript',
  'application/zip': 'application/zip',
}

/**
 * ZIP-based office and document formats count as ZIP: every OOXML, OpenDocument
 * and iWork variant file-type names (templates, slide shows and macro-enabled
 * files included), EPUB, 3MF and XPS.
 */
const ZIP_BASED_DOCUMENTS = new Set([
  ...['docx', 'docm', 'dotx', 'dotm', 'xlsx', 'xlsm', 'xltx', 'xltm'],
  ...['pptx', 'pptm', 'ppsx', 'ppsm', 'potx', 'potm', 'vsdx'],
  ...['odt', 'ott', 'ods', 'ots', 'odp', 'otp', 'odg', 'otg'],
  ...['pages', 'numbers', 'key'],
  ...['epub', '3mf', 'xps', 'oxps'],
])

const BINARY_DXF_SENTINEL = Buffer.from('AutoCAD Binary DXF\r\n\x1a\x00', 'latin1')

export async function detectContentType(head: Buffer): Promise<Detection> {
  if (head.length === 0) return { kind: 'unrecognized' }
  if (head.subarray(0, BINARY_DXF_SENTINEL.length).equals(BINARY_DXF_SENTINEL)) {
    return { kind: 'allowed', contentType: 'application/dxf' }
  }
  const found = await fileTypeFromBuffer(head)
  if (found && found.ext !== 'xml') {
    const mapped =
      FROM_FILE_TYPE[found.mime] ?? (ZIP_BASED_DOCUMENTS.has(found.ext) ? 'application/zip' : undefined)
    return mapped ? { kind: 'allowed', contentType: mapped } : { kind: 'not_allowed', detected: found.mime }
  }
  const text = decodeText(head)
  if (text === undefined) {
    // XML that file-type recognised but that is not SVG and not text we accept.
    return found ? { kind: 'not_allowed', detected: found.mime } : { kind: 'unrecognized' }
  }
  if (isSvg(text, head.length >= HEAD_BYTES)) return { kind: 'allowed', contentType: 'image/svg+xml' }
  if (found) return { kind: 'not_allowed', detected: found.mime }
  if (text.startsWith('%!')) return { kind: 'allowed', contentType: 'application/postscript' }
  if (isAsciiDxf(text)) return { kind: 'allowed', contentType: 'application/dxf' }
  if (text.trim().length === 0) return { kind: 'unrecognized' }
  return { kind: 'allowed', contentType: isCsv(text) ? 'text/csv' : 'text/plain' }
}

const utf8 = new TextDecoder('utf-8', { fatal: true })

/**
 * The head as text, or undefined when it is not UTF-8 text: invalid sequences,
 * NUL bytes or control characters other than tab, line breaks and form feed.
 * The head may end inside a multi-byte character; up to three trailing bytes of
 * an incomplete sequence are tolerated.
 */
function decodeText(head: Buffer): string | undefined {
  const bytes = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? head.subarray(3) : head
  // Only a head cut at HEAD_BYTES can end inside a character; a whole file cannot.
  const maxCut = head.length >= HEAD_BYTES ? 3 : 0
  let text: string | undefined
  for (let cut = 0; cut <= maxCut && text === undefined; cut++) {
    try {
      text = utf8.decode(bytes.subarray(0, bytes.length - cut))
    } catch {
      // try one byte shorter
    }
  }
  if (text === undefined) return undefined
  // biome-ignore lint/suspicious/noControlCharactersInRegex: this is the control-character check
  if (/[\u0000-\u0008\u000b\u000e-\u001f\u007f]/.test(text)) return undefined
  return text
}

/**
 * Root element `<svg>` after an optional XML declaration, comments, processing
 * instructions and doctype. `cut`: the text is only the head of a longer file;
 * a prolog that runs past it cannot be decided here and counts as SVG, so that
 * the sanitizer, which parses the whole file, decides (it refuses anything that
 * is not an SVG document). An SVG must never pass as text and skip sanitizing.
 */
export function isSvg(text: string, cut = false): boolean {
  let rest = text
  for (;;) {
    rest = rest.trimStart()
    let end: number
    if (rest.startsWith('<?')) end = endOf(rest, '?>', 2)
    else if (rest.startsWith('<!--')) end = endOf(rest, '-->', 4)
    else if (/^<!doctype/i.test(rest)) end = doctypeEnd(rest)
    else return /^<(?:[A-Za-z_][\w.-]*:)?svg[\s/>]/.test(rest) || (cut && rest === '')
    if (end < 0) return cut
    rest = rest.slice(end)
  }
}

/** The index after `terminator`, searched from `from`; -1 when it is missing. */
function endOf(text: string, terminator: string, from: number): number {
  const i = text.indexOf(terminator, from)
  return i < 0 ? -1 : i + terminator.length
}

/**
 * The index after a doctype's closing '>': not one inside a quoted literal or
 * the internal subset ([...], whose comments and processing instructions may
 * hold quotes, brackets and '>'). -1 when it is not closed.
 */
function doctypeEnd(text: string): number {
  let subset = false
  for (let i = 9; i < text.length; i++) {
    const ch = text[i]
    let skip = 0
    if (ch === '"' || ch === "'") skip = endOf(text, ch, i + 1)
    else if (subset && text.startsWith('<!--', i)) skip = endOf(text, '-->', i + 4)
    else if (subset && text.startsWith('<?', i)) skip = endOf(text, '?>', i + 2)
    else if (ch === '[') subset = true
    else if (ch === ']') subset = false
    else if (ch === '>' && !subset) return i + 1
    if (skip < 0) return -1
    if (skip > 0) i = skip - 1
  }
  return -1
}

/**
 * ASCII DXF: group-code/value line pairs, starting with an optional 999
 * comment and then `0` / `SECTION`.
 */
function isAsciiDxf(text: string): boolean {
  const lines = text.split(/\r?\n/, 8).map((l) => l.trim())
  let i = 0
  if (lines[i] === '999') i += 2
  return lines[i] === '0' && lines[i + 1] === 'SECTION'
}

/** At least two lines that split into the same number (>1) of fields on , ; or tab. */
function isCsv(text: string): boolean {
  const lines = text
    .split(/\r?\n/)
    .slice(0, 20)
    .filter((l) => l.length > 0)
  // The last line of the head may be cut off.
  if (lines.length > 2) lines.pop()
  if (lines.length < 2) return false
  return [',', ';', '\t'].some((sep) => {
    const counts = lines.map((l) => splitCsvLine(l, sep))
    return counts[0]! > 1 && counts.every((c) => c === counts[0])
  })
}

function splitCsvLine(line: string, sep: string): number {
  let fields = 1
  let quoted = false
  for (const ch of line) {
    if (ch === '"') quoted = !quoted
    else if (ch === sep && !quoted) fields++
  }
  return fields
}
