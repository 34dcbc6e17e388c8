import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { ALLOWED_TYPES, detectContentType, HEAD_BYTES } from '../../../src/modules/uploads/file-types.ts'
import {
  allowedFixtures,
  asciiDxf,
  csvSemicolon,
  png,
  rejectedFixtures,
  svgPlain,
  zip,
} from '../../fixtures/files.ts'

/** Deterministic noise (mulberry32), so the test cannot flake on a lucky magic number. */
function noise(seed: number, length: number): Buffer {
  let a = seed
  const out = Buffer.alloc(length)
  for (let i = 0; i < length; i++) {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    out[i] = ((t ^ (t >>> 14)) >>> 0) & 0xff
  }
  return out
}

describe('detectContentType: every allowed format of the reference', () => {
  const fixtures = allowedFixtures()

  test('the fixtures cover every type of the reference table', () => {
    assert.deepEqual(new Set(fixtures.map((f) => f.contentType)), new Set(ALLOWED_TYPES))
  })

  for (const fixture of fixtures) {
    test(`${fixture.name} is ${fixture.contentType}`, async () => {
      assert.deepEqual(await detectContentType(fixture.bytes), {
        kind: 'allowed',
        contentType: fixture.contentType,
      })
    })
  }

  test('detection reads only the head: a file cut at HEAD_BYTES keeps its type', async () => {
    const big = Buffer.concat([png(), Buffer.alloc(HEAD_BYTES * 2, 0x55)])
    assert.deepEqual(await detectContentType(big.subarray(0, HEAD_BYTES)), {
      kind: 'allowed',
      contentType: 'image/png',
    })
  })

  test('SVG after a BOM and leading white space is still SVG', async () => {
    for (const prefix of [Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('\r\n \t\n')]) {
      assert.deepEqual(await detectContentType(Buffer.concat([prefix, svgPlain()])), {
        kind: 'allowed',
        contentType: 'image/svg+xml',
      })
    }
  })

  test('SVG behind a doctype whose literals or internal subset hold quotes, brackets and >', async () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg"><rect width="1" height="1"/></svg>'
    for (const prolog of [
      '<!DOCTYPE svg [<!ENTITY x "a]b">]>',
      '<!DOCTYPE svg PUBLIC "-//x>y//EN" "http://example.com/a>b.dtd">',
      "<!DOCTYPE svg [\n  <!-- Illustrator's entities: ] > -->\n  <!ENTITY ns_extend 'http://ns.adobe.com/Extensibility/1.0/'>\n  <?pi ]> ?>\n]>",
    ]) {
      assert.deepEqual(await detectContentType(Buffer.from(`<?xml version="1.0"?>\n${prolog}\n${svg}`)), {
        kind: 'allowed',
        contentType: 'image/svg+xml',
      })
    }
  })

  test('a head cut inside a long prolog counts as SVG, so the sanitizer decides on the whole file', async () => {
    const head = Buffer.from(`<!--${'x'.repeat(HEAD_BYTES)}-->\n<svg xmlns="http://www.w3.org/2000/svg"/>`)
    assert.deepEqual(await detectContentType(head.subarray(0, HEAD_BYTES)), {
      kind: 'allowed',
      contentType: 'image/svg+xml',
    })
  })

  test('XML with another root element is not SVG, doctype or not', async () => {
    for (const xml of ['<!DOCTYPE root [<!ENTITY a "]">]><root/>\n', '<html><body>svg</body></html>\n']) {
      const detection = await detectContentType(Buffer.from(xml))
      assert.notDeepEqual(detection, { kind: 'allowed', contentType: 'image/svg+xml' }, xml)
    }
  })

  test('ZIP-based office formats other than DOCX are application/zip', async () => {
    const contentTypes = (main: string) =>
      '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      `<Override PartName="/part/main.xml" ContentType="${main}.main+xml"/></Types>`
    const ooxml = [
      ['xl', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
      ['ppt', 'application/vnd.openxmlformats-officedocument.presentationml.presentation'],
      ['ppt', 'application/vnd.openxmlformats-officedocument.presentationml.slideshow'],
      ['word', 'application/vnd.openxmlformats-officedocument.wordprocessingml.template'],
      ['word', 'application/vnd.ms-word.document.macroEnabled'],
    ].map(([dir, main]) =>
      zip([
        { name: '[Content_Types].xml', data: contentTypes(main!) },
        { name: `${dir}/main.xml`, data: '<x/>' },
      ]),
    )
    const openDocument = [
      'application/vnd.oasis.opendocument.text',
      'application/vnd.oasis.opendocument.spreadsheet',
      'application/vnd.oasis.opendocument.graphics-template',
    ].map((mimetype) =>
      zip([
        { name: 'mimetype', data: mimetype, method: 'store' },
        { name: 'content.xml', data: '<office:document-content/>' },
      ]),
    )
    for (const file of [...ooxml, ...openDocument]) {
      assert.deepEqual(await detectContentType(file), { kind: 'allowed', contentType: 'application/zip' })
    }
  })
})

describe('detectContentType: recognised formats the reference does not allow', () => {
  for (const fixture of rejectedFixtures()) {
    test(`${fixture.name} is not allowed and named ${fixture.detected}`, async () => {
      assert.deepEqual(await detectContentType(fixture.bytes), {
        kind: 'not_allowed',
        detected: fixture.detected,
      })
    })
  }
})

describe('detectContentType: empty, truncated and unrecognizable content', () => {
  test('an empty buffer is unrecognized', async () => {
    assert.deepEqual(await detectContentType(Buffer.alloc(0)), { kind: 'unrecognized' })
  })

  for (const length of [1, 2, 3]) {
    test(`a PNG signature cut to ${length} byte(s) is unrecognized`, async () => {
      assert.deepEqual(await detectContentType(png().subarray(0, length)), { kind: 'unrecognized' })
    })
  }

  for (const seed of [1, 42, 4711, 20_261_122]) {
    test(`random binary noise (seed ${seed}) is unrecognized`, async () => {
      assert.deepEqual(await detectContentType(noise(seed, 4096)), { kind: 'unrecognized' })
    })
  }

  test('white space only, NUL bytes and Latin-1 bytes are not text', async () => {
    for (const bytes of [
      Buffer.from(' \r\n\t\n'),
      Buffer.from('abc\0def\n'),
      Buffer.from('Gr\xfc\xdfe aus K\xf6ln\n', 'latin1'),
    ]) {
      assert.deepEqual(await detectContentType(bytes), { kind: 'unrecognized' })
    }
  })

  test('a whole file (shorter than the head) ending inside a UTF-8 character is unrecognized', async () => {
    const euro = Buffer.from('€', 'utf8')
    assert.deepEqual(
      await detectContentType(Buffer.concat([Buffer.from('Preis: 12 '), euro.subarray(0, 2)])),
      {
        kind: 'unrecognized',
      },
    )
  })
})

/** Exactly `length` bytes of valid UTF-8 text with umlauts, ending on a character boundary. */
function textOf(length: number): Buffer {
  const lines = Buffer.from('Grüße aus Köln – Größe prüfen\n'.repeat(Math.ceil(length / 20)), 'utf8')
  let end = length - 4
  while ((lines[end]! & 0xc0) === 0x80) end-- // not inside a character
  const text = Buffer.concat([lines.subarray(0, end), Buffer.alloc(length - end, 0x2e)])
  assert.doesNotThrow(() => new TextDecoder('utf-8', { fatal: true }).decode(text))
  return text
}

describe('detectContentType: a head cut inside a multi-byte UTF-8 character', () => {
  // The head is exactly HEAD_BYTES (64 KiB) and ends with 1..3 bytes of a 2-, 3- or 4-byte character.
  const cases: [string, number][] = [
    ['ä', 1],
    ['€', 1],
    ['€', 2],
    ['😀', 1],
    ['😀', 2],
    ['😀', 3],
  ]
  for (const [char, present] of cases) {
    test(`text cut after ${present} byte(s) of "${char}" at exactly ${HEAD_BYTES} bytes is still text/plain`, async () => {
      const encoded = Buffer.from(char, 'utf8')
      const head = Buffer.concat([textOf(HEAD_BYTES - present), encoded.subarray(0, present)])
      assert.equal(head.length, HEAD_BYTES)
      assert.deepEqual(await detectContentType(head), { kind: 'allowed', contentType: 'text/plain' })
    })
  }

  test('a CSV head cut inside "ß" at exactly 64 KiB is still text/csv', async () => {
    const rows = csvSemicolon().toString('utf8').split('\r\n').slice(1, -1)
    let text = 'Artikel;Menge;Preis\r\n'
    for (let i = 0; Buffer.byteLength(text) + 64 < HEAD_BYTES; i++) text += `${rows[i % rows.length]}\r\n`
    // The last row is cut right after the first byte of "ß" (0xC3 0x9F).
    const filler = Buffer.from(
      `${text}Stra`.padEnd(HEAD_BYTES - 1 - (Buffer.byteLength(text) - text.length), 'e'),
    )
    const head = Buffer.concat([filler, Buffer.from([0xc3])])
    assert.equal(head.length, HEAD_BYTES)
    assert.deepEqual(await detectContentType(head), { kind: 'allowed', contentType: 'text/csv' })
  })

  test('an ASCII DXF longer than the head is still application/dxf', async () => {
    const body = asciiDxf({ eol: '\r\n', comment: true })
    const big = Buffer.concat(new Array(Math.ceil((HEAD_BYTES * 2) / body.length)).fill(body))
    assert.deepEqual(await detectContentType(big.subarray(0, HEAD_BYTES)), {
      kind: 'allowed',
      contentType: 'application/dxf',
    })
  })
})
