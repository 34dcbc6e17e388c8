import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import { PDFDocument, PDFName } from '@cantoo/pdf-lib'
import sharp from 'sharp'
import { measureDxf, measureEps, svgLength } from '../../../src/modules/preflight/measure-vector.ts'
import { createMeasuring } from '../../../src/modules/preflight/measuring.ts'

/** Files measured in the worker process: what comes out of each format, and the limits that stop hostile ones. */
describe('measuring production files', () => {
  const measuring = createMeasuring({ timeLimitMs: 5_000 })
  after(() => measuring.close())

  test('a JPEG with EXIF orientation 6: turned size, density, profile; a CMYK one: its colour', async () => {
    const turned = await sharp({ create: { width: 300, height: 200, channels: 3, background: 'white' } })
      .withMetadata({ orientation: 6, density: 300 })
      .jpeg()
      .toBuffer()
    const result = await measuring.measure(turned, 'image/jpeg')
    assert.ok(result.ok)
    assert.deepEqual(
      { ...result.facts },
      {
        kind: 'raster',
        format: 'jpeg',
        width: 200,
        height: 300,
        density: 300,
        colour: 'rgb',
        icc_profile: 'sRGB',
        alpha: false,
        transparent: false,
        orientation: 6,
        frames: 1,
      },
    )
    const cmyk = await sharp({ create: { width: 30, height: 20, channels: 3, background: 'white' } })
      .toColourspace('cmyk')
      .jpeg()
      .toBuffer()
    const measured = await measuring.measure(cmyk, 'image/jpeg')
    assert.ok(measured.ok && measured.facts.kind === 'raster')
    assert.equal(measured.facts.colour, 'cmyk')
  })

  test('alpha: an opaque alpha channel is not transparency, a half-transparent one is', async () => {
    const make = (alpha: number) =>
      sharp({ create: { width: 20, height: 20, channels: 4, background: { r: 0, g: 0, b: 0, alpha } } })
        .png()
        .toBuffer()
    const opaque = await measuring.measure(await make(1), 'image/png')
    const see = await measuring.measure(await make(0.5), 'image/png')
    assert.ok(opaque.ok && opaque.facts.kind === 'raster' && see.ok && see.facts.kind === 'raster')
    assert.deepEqual([opaque.facts.alpha, opaque.facts.transparent], [true, false])
    assert.deepEqual([see.facts.alpha, see.facts.transparent], [true, true])
  })

  test('a PDF with a TrimBox and a BleedBox: boxes in millimetres', async () => {
    const doc = await PDFDocument.create()
    const pt = (mm: number) => (mm * 72) / 25.4
    const page = doc.addPage([pt(216), pt(303)])
    page.setTrimBox(pt(3), pt(3), pt(210), pt(297))
    page.setBleedBox(0, 0, pt(216), pt(303))
    const result = await measuring.measure(Buffer.from(await doc.save()), 'application/pdf')
    assert.ok(result.ok && result.facts.kind === 'pdf')
    assert.deepEqual(result.facts.page_boxes, [
      {
        media: { width_mm: 216, height_mm: 303 },
        trim: { width_mm: 210, height_mm: 297 },
        bleed: { width_mm: 216, height_mm: 303 },
      },
    ])
  })

  test('a PDF whose page tree contains itself is stopped and recorded, and the next file is measured', async () => {
    const doc = await PDFDocument.create()
    doc.addPage()
    const pages = doc.catalog.Pages()
    pages.Kids().push(doc.catalog.get(PDFName.of('Pages'))!)
    pages.set(PDFName.of('Count'), doc.context.obj(2))
    const looped = Buffer.from(await doc.save({ updateFieldAppearances: false }))
    const result = await measuring.measure(looped, 'application/pdf')
    assert.equal(result.ok, false)
    const next = await measuring.measure(
      await sharp({ create: { width: 4, height: 4, channels: 3, background: 'red' } })
        .png()
        .toBuffer(),
      'image/png',
    )
    assert.equal(next.ok, true, 'the worker is usable (or started again) after a hostile file')
  })

  test('SVG lengths, EPS bounding boxes and DXF extents', () => {
    assert.equal(svgLength('96px'), 25.4)
    assert.equal(svgLength('72pt'), 25.4)
    assert.equal(svgLength('10cm'), 100)
    assert.equal(svgLength('50%'), null)
    const eps = measureEps(
      Buffer.from(
        '%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 595 842\n%%HiResBoundingBox: 0 0 595.28 841.89\n',
      ),
    )
    assert.ok(eps.ok && eps.facts.kind === 'vector')
    assert.deepEqual([eps.facts.width_mm, eps.facts.height_mm], [210, 297])
    const dxf = (units: number) =>
      measureDxf(
        Buffer.from(
          `0\nSECTION\n2\nHEADER\n9\n$INSUNITS\n70\n${units}\n9\n$EXTMIN\n10\n0\n20\n0\n30\n0\n9\n$EXTMAX\n10\n40\n20\n30\n30\n0\n0\nENDSEC\n0\nEOF\n`,
        ),
      )
    const cm = dxf(5)
    assert.ok(cm.ok && cm.facts.kind === 'vector')
    assert.deepEqual([cm.facts.width_mm, cm.facts.height_mm], [400, 300])
    const unitless = dxf(0)
    assert.ok(unitless.ok && unitless.facts.kind === 'vector')
    assert.deepEqual([unitless.facts.width_mm, unitless.facts.aspect], [null, 4 / 3])
    assert.deepEqual(measureDxf(Buffer.from('0\nSECTION\n2\nHEADER\n0\nENDSEC\n')), {
      ok: false,
      reason: 'The DXF file states no drawing extents ($EXTMIN, $EXTMAX).',
    })
  })
})
