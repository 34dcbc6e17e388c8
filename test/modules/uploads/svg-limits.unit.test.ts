import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { catalogValues } from '../../../src/catalog-values.ts'
import { DEFAULT_CONFIG } from '../../../src/config.ts'
import { errorTexts } from '../../../src/http/errors.ts'
import { DEFAULT_TIMEOUTS } from '../../../src/http/timeouts.ts'
import { SVG_LIMITS, svgComplexity } from '../../../src/modules/uploads/svg-limits.ts'
import { SVG_SANITIZER_DEFAULTS } from '../../../src/modules/uploads/svg-pool.ts'
import { allowedFixtures } from '../../fixtures/files.ts'
import { nestedSvg, rectSvg, tracedSvg } from '../../fixtures/svg-large.ts'
import { SVG_XSS_VECTORS } from '../../fixtures/svg-xss.ts'

const NS = 'xmlns="http://www.w3.org/2000/svg"'
const svg = (inner: string, prolog = '') => `${prolog}<svg ${NS}>${inner}</svg>`

describe('svgComplexity: the limits checked before any DOM is built', () => {
  test('every SVG fixture and XSS vector is within the limits', () => {
    const files = allowedFixtures().filter((f) => f.contentType === 'image/svg+xml')
    assert.ok(files.length >= 4)
    for (const f of files) assert.equal(svgComplexity(f.bytes.toString('utf8')), undefined, f.name)
    for (const v of SVG_XSS_VECTORS) assert.equal(svgComplexity(v.svg), undefined, v.name)
  })

  test('a large realistic design-tool export (a trace of 36 000 paths, 6.3 MB) is within the limits', () => {
    const file = tracedSvg(36_000)
    assert.ok(file.length > 6_000_000)
    assert.equal(svgComplexity(file.toString('utf8')), undefined)
  })

  test('500 000 <rect> (20 MB) are refused by the node count', () => {
    assert.equal(
      svgComplexity(rectSvg(500_000).toString('utf8')),
      `The SVG file has more than ${SVG_LIMITS.nodes} nodes (elements, attributes, texts and comments).`,
    )
  })

  test('elements without attributes: 50 000 pass, one more is refused', () => {
    assert.equal(svgComplexity(svg('<g/>'.repeat(SVG_LIMITS.elements - 1))), undefined)
    assert.equal(
      svgComplexity(svg('<g/>'.repeat(SVG_LIMITS.elements))),
      `The SVG file has more than ${SVG_LIMITS.elements} elements.`,
    )
  })

  test('nesting: 256 levels pass, 257 are refused', () => {
    // The root <svg> is the first level.
    assert.equal(svgComplexity(nestedSvg(SVG_LIMITS.depth - 1).toString('utf8')), undefined)
    assert.equal(
      svgComplexity(nestedSvg(SVG_LIMITS.depth).toString('utf8')),
      `The SVG file nests elements more than ${SVG_LIMITS.depth} levels deep.`,
    )
    assert.match(svgComplexity(nestedSvg(20_000).toString('utf8'))!, /levels deep/)
  })

  test('nodes: attributes and texts count with the elements', () => {
    const rects = (n: number) => '<rect x="1" y="2" width="3" height="4"/>\n'.repeat(n)
    // 1 root + n * (1 element + 4 attributes + 1 text)
    const fits = Math.floor((SVG_LIMITS.nodes - 1) / 6)
    assert.equal(svgComplexity(svg(rects(fits))), undefined)
    assert.equal(
      svgComplexity(svg(rects(fits + 1))),
      `The SVG file has more than ${SVG_LIMITS.nodes} nodes (elements, attributes, texts and comments).`,
    )
  })

  test('comments count as elements', () => {
    assert.match(svgComplexity(svg('<!---->'.repeat(SVG_LIMITS.elements)))!, /more than 50000 elements/)
  })

  test('attributes on one element: 256 pass, 257 are refused', () => {
    const attrs = (n: number) => Array.from({ length: n }, (_, i) => `data-a${i}="1"`).join(' ')
    assert.equal(svgComplexity(svg(`<rect ${attrs(256)}/>`)), undefined)
    assert.equal(
      svgComplexity(svg(`<rect ${attrs(257)}/>`)),
      'An element of the SVG file has more than 256 attributes.',
    )
  })

  test('entities of the internal DTD: their expansion is bounded', () => {
    const dtd = (value: string) => `<!DOCTYPE svg [<!ENTITY e "${value}">]>`
    const value = 'x'.repeat(1000)
    const fits = Math.floor(SVG_LIMITS.entityExpansion / 1000)
    assert.equal(svgComplexity(svg(`<text>${'&e;'.repeat(fits)}</text>`, dtd(value))), undefined)
    assert.equal(
      svgComplexity(svg(`<text>${'&e;'.repeat(fits + 1)}</text>`, dtd(value))),
      `The entities of the SVG file expand to more than ${SVG_LIMITS.entityExpansion} characters.`,
    )
  })

  test('a file that is not well-formed is left to the parser', () => {
    assert.equal(svgComplexity(`<svg ${NS}><g></svg>`), undefined)
    assert.equal(svgComplexity('not xml at all'), undefined)
  })

  test('the catalog entry file_too_complex states the limits in force', () => {
    const texts = errorTexts(catalogValues(DEFAULT_CONFIG, DEFAULT_TIMEOUTS, undefined))
    const text = texts.file_too_complex.description
    for (const n of [
      SVG_LIMITS.elements,
      SVG_LIMITS.nodes,
      SVG_LIMITS.depth,
      SVG_LIMITS.attributesPerElement,
      SVG_SANITIZER_DEFAULTS.timeLimitMs / 1000,
    ]) {
      assert.ok(text.includes(String(n)), `${n} missing in: ${text}`)
    }
    assert.equal(SVG_LIMITS.entityExpansion, 1024 * 1024)
    assert.equal(SVG_SANITIZER_DEFAULTS.memoryLimitMb, 1024)
    assert.match(text, /1 MiB/)
    assert.match(text, /1 GB/)
  })
})
