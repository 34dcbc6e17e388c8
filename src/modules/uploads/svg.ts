import createDOMPurify from 'dompurify'
import { JSDOM } from 'jsdom'

/**
 * SVG sanitizing at order acceptance. The file is parsed as XML (so entities and
 * CDATA are resolved by a real parser, not guessed at), then DOMPurify with its
 * SVG profiles keeps the harmless elements and attributes, and the hooks below
 * remove everything that can reach outside the file: any href or url() that is
 * not a fragment of the document itself, style sheets, and animations that
 * rewrite links or event attributes. Returns undefined when the file is not
 * well-formed SVG.
 */
const { window } = new JSDOM('')
const purify = createDOMPurify(window as unknown as Parameters<typeof createDOMPurify>[0])

const SVG_NS = 'http://www.w3.org/2000/svg'
const LINK_ATTRIBUTES = new Set(['href', 'xlink:href', 'src', 'action', 'formaction', 'background', 'data'])
/** url(...) whose target is not a local fragment (#id). */
const EXTERNAL_URL = /url\s*\(\s*(?!['"]?\s*#)/i
const ACTIVE_TEXT = /javascript:|vbscript:|data:|@import|expression\s*\(|behavior\s*:|-moz-binding/i
const ANIMATIONS = new Set(['animate', 'set', 'animatemotion', 'animatetransform', 'animatecolor'])

purify.addHook('uponSanitizeElement', (node, data) => {
  const element = node as unknown as Element
  if (!ANIMATIONS.has(data.tagName)) return
  // An animation may not retarget links, event handlers or styles.
  const target = (element.getAttribute('attributeName') ?? '').toLowerCase()
  const values = ['to', 'from', 'values', 'by'].map((a) => element.getAttribute(a) ?? '').join(' ')
  if (/href|^on|style/.test(target) || ACTIVE_TEXT.test(values)) element.remove()
})

purify.addHook('uponSanitizeAttribute', (_node, data) => {
  const name = data.attrName.toLowerCase()
  const value = data.attrValue.trim()
  if (LINK_ATTRIBUTES.has(name)) {
    // Only references inside the document itself survive.
    if (!value.startsWith('#')) data.keepAttr = false
    return
  }
  if (EXTERNAL_URL.test(value) || ACTIVE_TEXT.test(value)) data.keepAttr = false
})

export function sanitizeSvg(source: string): string | undefined {
  const parsed = new window.DOMParser().parseFromString(source, 'image/svg+xml')
  const root = parsed.documentElement
  if (
    !root ||
    root.namespaceURI !== SVG_NS ||
    root.localName !== 'svg' ||
    parsed.querySelector('parsererror')
  ) {
    return undefined
  }
  const serialized = new window.XMLSerializer().serializeToString(root)
  const fragment = purify.sanitize(serialized, {
    USE_PROFILES: { svg: true, svgFilters: true },
    PARSER_MEDIA_TYPE: 'application/xhtml+xml',
    FORBID_TAGS: ['style', 'foreignObject', 'script', 'iframe', 'embed', 'object', 'link', 'meta', 'base'],
    RETURN_DOM_FRAGMENT: true,
  }) as unknown as DocumentFragment
  const svg = fragment.firstElementChild
  if (!svg || svg.localName !== 'svg') return undefined
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new window.XMLSerializer().serializeToString(svg)}\n`
}
