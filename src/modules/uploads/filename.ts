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
