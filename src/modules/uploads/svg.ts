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
/** CSS functions that load an image from a plain string, without url(). */
const IMAGE_FUNCTION = /(?:image-set|src)\s*\(/i

/** A value as CSS reads it: comments gone, escapes (`u\72l(`) resolved, so they cannot hide url(. */
function cssText(value: string): string {
  return value
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\\([0-9a-f]{1,6})[ \t\n\r\f]?/gi, (_, hex: string) => {
      const code = Number.parseInt(hex, 16)
      return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff)
        ? String.fromCodePoint(code)
        : '\ufffd'
    })
    .replace(/\\(.)/gs, '$1')
}
const ANIMATIONS = new Set(['animate', 'set', 'animatemotion', 'animatetransform', 'animatecolor'])
/**
 * XML parsing is case-sensitive and DOMPurify's SVG allowlists are lower case:
 * without these the harmless camelCase elements and attributes (gradients,
 * clip paths, filters, viewBox) would be dropped. Only names whose lower-case
 * form the SVG profiles already allow are listed (foreignObject is not).
 */
const CAMEL_CASE_TAGS = (
  'altGlyph altGlyphDef altGlyphItem animateColor animateMotion animateTransform clipPath glyphRef ' +
  'linearGradient radialGradient textPath feBlend feColorMatrix feComponentTransfer feComposite ' +
  'feConvolveMatrix feDiffuseLighting feDisplacementMap feDistantLight feDropShadow feFlood feFuncA ' +
  'feFuncB feFuncG feFuncR feGaussianBlur feImage feMerge feMergeNode feMorphology feOffset ' +
  'fePointLight feSpecularLighting feSpotLight feTile feTurbulence'
).split(' ')
const CAMEL_CASE_ATTRIBUTES = (
  'attributeName attributeType baseFrequency clipPathUnits diffuseConstant edgeMode filterUnits ' +
  'glyphRef gradientTransform gradientUnits kernelMatrix kernelUnitLength keyPoints keySplines ' +
  'keyTimes lengthAdjust markerHeight markerUnits markerWidth maskContentUnits maskUnits numOctaves ' +
  'pathLength patternContentUnits patternTransform patternUnits preserveAlpha preserveAspectRatio ' +
  'primitiveUnits refX refY repeatCount repeatDur specularConstant specularExponent spreadMethod ' +
  'startOffset stdDeviation stitchTiles surfaceScale systemLanguage tableValues targetX targetY ' +
  'textLength viewBox xChannelSelector yChannelSelector zoomAndPan'
).split(' ')

purify.addHook('uponSanitizeElement', (node, data) => {
  const element = node as unknown as Element
  if (!ANIMATIONS.has(data.tagName.toLowerCase())) return
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
  const css = cssText(value)
  if ([value, css].some((v) => EXTERNAL_URL.test(v) || ACTIVE_TEXT.test(v)) || IMAGE_FUNCTION.test(css)) {
    data.keepAttr = false
  }
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
    // <use> is harmless once its href can only point inside the file (hook above).
    ADD_TAGS: [...CAMEL_CASE_TAGS, 'use'],
    ADD_ATTR: CAMEL_CASE_ATTRIBUTES,
    RETURN_DOM_FRAGMENT: true,
  }) as unknown as DocumentFragment
  const svg = fragment.firstElementChild
  if (svg?.localName !== 'svg') return undefined
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new window.XMLSerializer().serializeToString(svg)}\n`
}
