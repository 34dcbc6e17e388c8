import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { sanitizeSvg } from '../../../src/modules/uploads/svg.ts'
import { svgPlain, svgWithComments, svgWithDeclaration, svgWithDoctype } from '../../fixtures/files.ts'
import { assertInertSvg, SVG_XSS_VECTORS } from '../../fixtures/svg-xss.ts'

describe('sanitizeSvg: XSS corpus', () => {
  test('the corpus has at least 20 vectors', () => {
    assert.ok(SVG_XSS_VECTORS.length >= 20, String(SVG_XSS_VECTORS.length))
  })

  for (const vector of SVG_XSS_VECTORS) {
    test(vector.name, () => {
      const started = performance.now()
      const out = sanitizeSvg(vector.svg)
      // Entity expansion (billion laughs) must not hang the process.
      assert.ok(performance.now() - started < 2000, 'sanitizing took too long')
      if (out === undefined) {
        assert.ok(vector.mayRefuse, 'a well-formed SVG was refused')
        return
      }
      assertInertSvg(out)
      for (const kept of vector.keep) assert.ok(out.includes(kept), `lost ${kept} in\n${out}`)
    })
  }
})

describe('sanitizeSvg: harmless files', () => {
  for (const [name, bytes] of [
    ['plain', svgPlain()],
    ['with XML declaration', svgWithDeclaration()],
    ['with doctype', svgWithDoctype()],
    ['with comments', svgWithComments()],
  ] as const) {
    test(`keeps the drawing of an SVG ${name}`, () => {
      const out = sanitizeSvg(bytes.toString('utf8'))
      assert.ok(out !== undefined)
      assertInertSvg(out)
      for (const kept of [
        'viewBox="0 0 64 64"',
        'width="64" height="64"',
        '<linearGradient id="g">',
        '<stop offset="0" stop-color="#f00"/>',
        '<rect x="4" y="4" width="56" height="56" fill="url(#g)"/>',
        '<circle cx="32" cy="32" r="10" fill="#fff"/>',
        '<text x="8" y="60">Grüße</text>',
      ]) {
        assert.ok(out.includes(kept), `lost ${kept} in\n${out}`)
      }
      assert.ok(out.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<svg'), out)
    })
  }

  test('keeps camelCase elements and attributes, local references and styles', () => {
    const source =
      '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10" preserveAspectRatio="xMidYMid meet">' +
      '<defs><radialGradient id="r" gradientUnits="userSpaceOnUse"><stop offset="0" stop-color="red"/></radialGradient>' +
      '<clipPath id="c" clipPathUnits="userSpaceOnUse"><rect width="5" height="5"/></clipPath>' +
      '<pattern id="p" patternUnits="userSpaceOnUse" width="2" height="2"><circle r="1"/></pattern>' +
      '<filter id="f"><feGaussianBlur stdDeviation="1"/><feOffset dx="1" dy="1"/></filter></defs>' +
      '<g clip-path="url(#c)" filter="url(#f)"><path id="arc" d="M1 5A4 4 0 0 1 9 5" fill="url(#p)" stroke="url(&quot;#r&quot;)" style="stroke-width:0.5;opacity:.8"/></g>' +
      '<text><textPath xlink:href="#arc" startOffset="10%">Hallo</textPath></text>' +
      '<a xlink:href="#arc"><ellipse rx="1" ry="2" transform="translate(5 5)"/></a></svg>'
    const out = sanitizeSvg(source)
    assert.ok(out !== undefined)
    assertInertSvg(out)
    for (const kept of [
      'viewBox="0 0 10 10"',
      'preserveAspectRatio="xMidYMid meet"',
      '<radialGradient id="r" gradientUnits="userSpaceOnUse">',
      '<clipPath id="c" clipPathUnits="userSpaceOnUse">',
      '<pattern id="p" patternUnits="userSpaceOnUse" width="2" height="2">',
      '<feGaussianBlur stdDeviation="1"/>',
      '<feOffset dx="1" dy="1"/>',
      '<g clip-path="url(#c)" filter="url(#f)">',
      'fill="url(#p)"',
      'stroke="url(&quot;#r&quot;)"',
      'style="stroke-width:0.5;opacity:.8"',
      '<textPath xlink:href="#arc" startOffset="10%">Hallo</textPath>',
      '<a xlink:href="#arc">',
      '<ellipse rx="1" ry="2" transform="translate(5 5)"/>',
    ]) {
      assert.ok(out.includes(kept), `lost ${kept} in\n${out}`)
    }
  })
})

describe('sanitizeSvg: input that is not well-formed SVG', () => {
  for (const [name, source] of [
    ['an unclosed element', '<svg xmlns="http://www.w3.org/2000/svg"><rect></svg>'],
    ['an undefined entity', '<svg xmlns="http://www.w3.org/2000/svg"><text>&nope;</text></svg>'],
    ['a root that is not svg', '<html xmlns="http://www.w3.org/1999/xhtml"><body/></html>'],
    ['an svg root outside the SVG namespace', '<svg xmlns="urn:not-svg"><rect/></svg>'],
    ['text after the root element', '<svg xmlns="http://www.w3.org/2000/svg"/><script>alert(1)</script>'],
    ['empty input', ''],
  ] as const) {
    test(`returns undefined for ${name}`, () => {
      assert.equal(sanitizeSvg(source), undefined)
    })
  }
})
