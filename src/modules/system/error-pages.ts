import type { ErrorContext } from '../../http/error-handler.ts'
import { ERROR_CODES, type ErrorCode } from '../../http/errors.ts'

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)

/** Inline `code` spans from the catalog's backticks, after escaping. */
const prose = (s: string) => escapeHtml(s).replace(/`([^`]+)`/g, '<code>$1</code>')

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#222}
code{background:#f3f3f3;padding:.1em .3em;border-radius:3px}dt{font-weight:600;margin-top:.8rem}
table{border-collapse:collapse}td,th{border-bottom:1px solid #ddd;padding:.3rem .6rem;text-align:left}</style>
</head><body>${body}</body></html>`
}

export function renderErrorPage(code: ErrorCode, { publicBaseUrl, texts }: ErrorContext): string {
  const e = texts[code]
  const where =
    e.kind === 'error'
      ? `<dt>HTTP status</dt><dd>${e.status}</dd><dt>Appears as</dt><dd><code>error.code</code></dd>`
      : `<dt>Appears as</dt><dd><code>error.errors[].code</code> inside a 422 <code>validation_failed</code></dd>`
  return layout(
    `${code} — API error reference`,
    `<p><a href="${escapeHtml(publicBaseUrl)}/developers/errors">All error codes</a></p>
<h1><code>${code}</code></h1>
<p>${prose(e.description)}</p>
<dl>${where}<dt>Default message</dt><dd>${prose(e.message)}</dd><dt>What to do</dt><dd>${prose(e.retry)}</dd></dl>
<p>Branch on <code>code</code> only; messages may change. Unknown codes are treated as a generic failure of their HTTP status class.</p>`,
  )
}

export function renderErrorIndex({ publicBaseUrl, texts }: ErrorContext): string {
  const rows = ERROR_CODES.map((code) => {
    const e = texts[code]
    return `<tr><td><a href="${escapeHtml(publicBaseUrl)}/developers/errors/${code}"><code>${code}</code></a></td><td>${e.kind === 'error' ? e.status : `${e.status} (nested)`}</td><td>${prose(e.message)}</td></tr>`
  }).join('\n')
  return layout(
    'API error reference',
    `<h1>API error reference</h1><table><tr><th>Code</th><th>HTTP</th><th>Meaning</th></tr>${rows}</table>`,
  )
}
