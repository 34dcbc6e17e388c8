import { readFileSync } from 'node:fs'
import { GUIDES_PATH, type Guide } from './guides.ts'

/** The version of the renderer's package, part of its URL so that a browser may keep the file for good. */
export const RENDERER_VERSION: string = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.resolve('@scalar/api-reference')), 'utf8'),
).version

/** Where the reference, its renderer and the stylesheet are served. */
export const DOCS_PATH = '/docs'
export const ASSETS_PATH = '/docs/assets'
export const RENDERER_PATH = `/docs/assets/scalar/${RENDERER_VERSION}`

const ONLY_SELF =
  "default-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; object-src 'none'"

/** Guide pages: nothing but this origin, no script at all. */
export const GUIDE_CSP = `${ONLY_SELF}; script-src 'none'`

/**
 * The reference: scripts, data, images and fonts from this origin only. The
 * renderer (Vue) sets style attributes and injects its stylesheet at run time,
 * which CSP counts as inline styles; styles cannot fetch anything past the
 * other directives.
 */
export const REFERENCE_CSP = `${ONLY_SELF}; style-src 'self' 'unsafe-inline'`

export const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)

function nav(guides: Guide[], current: string): string {
  const link = (href: string, label: string, name: string) =>
    `<a href="${href}"${name === current ? ' aria-current="page"' : ''}>${escapeHtml(label)}</a>`
  const links = [
    link(DOCS_PATH, 'API reference', 'reference'),
    ...guides.filter((g) => g.label).map((g) => link(`${GUIDES_PATH}/${g.name}`, g.label!, g.name)),
    link(`${GUIDES_PATH}/decisions`, 'Decisions', 'decisions'),
    link('/developers/errors', 'Error codes', 'errors'),
  ]
  return `<header class="docs-header"><nav aria-label="Documentation">${links.join('')}</nav></header>`
}

function page(options: {
  title: string
  current: string
  guides: Guide[]
  body: string
  bodyClass?: string
}) {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.title)}</title>
<link rel="icon" href="${ASSETS_PATH}/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${ASSETS_PATH}/docs.css">
</head><body${options.bodyClass ? ` class="${options.bodyClass}"` : ''}>
${nav(options.guides, options.current)}
${options.body}
</body></html>`
}

/** The interactive reference: the renderer's bundle and our settings for it, both files of this origin. */
export function referencePage(guides: Guide[]): string {
  return page({
    title: 'API reference',
    current: 'reference',
    guides,
    bodyClass: 'reference',
    body: `<div id="reference" data-openapi-url="/v1/openapi.json"></div>
<script src="${ASSETS_PATH}/before-renderer.js"></script>
<script src="${RENDERER_PATH}/standalone.js"></script>
<script src="${ASSETS_PATH}/reference.js"></script>`,
  })
}

export function guidePage(guide: Guide, html: string, guides: Guide[]): string {
  return page({
    title: `${guide.title} | Documentation`,
    current: guide.name.startsWith('decisions/') ? 'decisions' : guide.name,
    guides,
    body: `<main class="guide">${html}</main>`,
  })
}

/** The list of decision records, newest last as the files sort. */
export function decisionsPage(guides: Guide[]): string {
  const items = guides
    .filter((g) => g.name.startsWith('decisions/'))
    .map((g) => `<li><a href="${GUIDES_PATH}/${g.name}">${escapeHtml(g.title)}</a></li>`)
    .join('\n')
  return page({
    title: 'Decisions | Documentation',
    current: 'decisions',
    guides,
    body: `<main class="guide"><h1>Decisions</h1>
<p>Why the service does what it does, with the numbers measured at the time.</p>
<ul>${items}</ul></main>`,
  })
}
