/** Sanitized names are at most this long. */
export const MAX_FILENAME = 120
const MAX_EXTENSION = 16

/**
 * DECISIONS: strip directory parts (`/` and `\`), replace every character
 * outside [A-Za-z0-9._-] with `_`, truncate to 120 characters keeping an
 * extension of up to 16 characters, and call an empty or dots-only result `file`.
 */
export function sanitizeFilename(raw: string): string {
  const base = raw.split(/[/\\]/).pop() ?? ''
  // Per character (code point), so "ü" becomes one "_", not two.
  const safe = Array.from(base, (ch) => (/^[A-Za-z0-9._-]$/.test(ch) ? ch : '_')).join('')
  let name = safe
  if (name.length > MAX_FILENAME) {
    const dot = name.lastIndexOf('.')
    const extension = dot > 0 && name.length - dot - 1 <= MAX_EXTENSION ? name.slice(dot) : ''
    name = name.slice(0, MAX_FILENAME - extension.length) + extension
  }
  return /^\.*$/.test(name) ? 'file' : name
}

/** File name extensions that fit each stored type; the first is the one added when none fits. */
const EXTENSIONS: Record<string, string[]> = {
  'image/png': ['png'],
  'image/jpeg': ['jpg', 'jpeg', 'jpe', 'jfif'],
  'image/webp': ['webp'],
  'image/gif': ['gif'],
  'image/svg+xml': ['svg'],
  'image/tiff': ['tif', 'tiff'],
  'image/bmp': ['bmp', 'dib'],
  'image/heic': ['heic', 'heif'],
  'image/heif': ['heif', 'heic'],
  'image/avif': ['avif'],
  'application/pdf': ['pdf', 'ai'],
  'application/dxf': ['dxf'],
  'application/postscript': ['ps', 'eps', 'ai', 'epsf'],
  'application/zip': [
    'zip',
    'docx',
    'xlsx',
    'pptx',
    'odt',
    'ods',
    'odp',
    'odg',
    'epub',
    '3mf',
    'xps',
    'oxps',
  ],
  'text/plain': ['txt', 'text', 'log'],
  'text/csv': ['csv', 'txt'],
}

/**
 * The name a stored file is downloaded under: the sanitized name, plus the
 * detected type's extension when the name's own does not fit the content, so
 * a text file uploaded as "invoice.html" cannot render as a page once saved.
 */
export function downloadName(filename: string, contentType: string): string {
  const fitting = EXTENSIONS[contentType]
  if (!fitting) return filename
  const dot = filename.lastIndexOf('.')
  const extension = dot > 0 ? filename.slice(dot + 1).toLowerCase() : ''
  return fitting.includes(extension) ? filename : `${filename}.${fitting[0]}`
}
