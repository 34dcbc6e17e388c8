import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  effectiveDpi,
  judgeAspect,
  judgeResolution,
  pixelsAdvice,
  requiredPixels,
} from '../../../src/modules/products/preflight-formulas.ts'

/** Figures worked out by hand: 1 inch = 25.4 mm; A2 = 420 × 594 mm = 16.5354 × 23.3858 in. */
const A2 = { width_mm: 420, height_mm: 594, bleed_mm: 0, min_dpi: 150 }
const A4_BLEED = { width_mm: 210, height_mm: 297, bleed_mm: 3, min_dpi: 300 }
const MUG = { width_mm: 200, height_mm: 95, bleed_mm: 0, min_dpi: 200 }
const thin = (s: string) => s.replace(/_/g, '\u2009')

test('the pixels an area needs: inches of the area (bleed included) times the dpi, rounded up', () => {
  // 16.5354 × 150 = 2480.3 → 2481; 23.3858 × 150 = 3507.9 → 3508.
  assert.deepEqual(requiredPixels(A2), { width: 2481, height: 3508 })
  // 216 × 303 mm = 8.5039 × 11.9291 in; × 300 = 2551.2 → 2552 and 3578.7 → 3579.
  assert.deepEqual(requiredPixels(A4_BLEED), { width: 2552, height: 3579 })
  assert.equal(pixelsAdvice(A2), thin('Upload at least 2_481 × 3_508 px for 420 × 594 mm at 150 dpi.'))
  assert.equal(
    pixelsAdvice(A4_BLEED),
    thin('Upload at least 2_552 × 3_579 px for 216 × 303 mm (210 × 297 mm and 3 mm bleed) at 300 dpi.'),
  )
})

test('the effective dpi is the smaller direction’s, as the file is scaled to cover the area', () => {
  // 400 / 16.5354 = 24.19; 300 / 23.3858 = 12.83.
  assert.equal(Math.round(effectiveDpi({ width: 400, height: 300 }, A2) * 100) / 100, 12.83)
  // 2480 / 16.5354 = 149.98: one pixel short of 150.
  assert.equal(Math.floor(effectiveDpi({ width: 2480, height: 3508 }, A2)), 149)
})

test('resolution: ok at the asked dpi, a warning down to two thirds of it, else a problem, with what to upload', () => {
  assert.equal(judgeResolution({ width: 2481, height: 3508 }, A2).verdict, 'ok')
  const short = judgeResolution({ width: 2000, height: 2800 }, A2)
  // 2000 / 16.5354 = 120.95; 2800 / 23.3858 = 119.73 → 119 dpi, at least 100 (two thirds of 150).
  assert.deepEqual(short, {
    verdict: 'warning',
    dpi: 119,
    sentence: thin(
      '2_000 × 2_800 px prints at 119 dpi, 150 asked. Upload at least 2_481 × 3_508 px for 420 × 594 mm at 150 dpi.',
    ),
  })
  // 400 × 300 px on a poster A2: 12 dpi.
  const tiny = judgeResolution({ width: 400, height: 300 }, A2)
  assert.equal(tiny.verdict, 'problem')
  assert.equal(tiny.dpi, 12)
  // Exactly two thirds (100 of 150) is still a warning; 99 is a problem.
  const at = (dpi: number) => ({
    width: Math.ceil((420 / 25.4) * dpi) + 1,
    height: Math.ceil((594 / 25.4) * dpi) + 1,
  })
  assert.equal(judgeResolution(at(100), A2).verdict, 'warning')
  assert.equal(judgeResolution(at(99), A2).verdict, 'problem')
})

test('shape: within 2 % it fits, within 10 % it is cropped (a warning), beyond it is a problem', () => {
  // The mug wrap is 200 / 95 = 2.1053 wide per high.
  assert.equal(judgeAspect({ width: 2100, height: 1000 }, MUG).verdict, 'ok') // 2.1 / 2.1053: 0.25 % off
  const cropped = judgeAspect({ width: 1900, height: 1000 }, MUG) // 1.9 / 2.1053: 9.75 % off
  assert.equal(cropped.verdict, 'warning')
  assert.equal(
    cropped.sentence,
    "Its shape is 10% off the print area's (200 × 95 mm): it will be cropped to fill it.",
  )
  const square = judgeAspect({ width: 1000, height: 1000 }, MUG) // 1 / 2.1053: 52.5 % off
  assert.equal(square.verdict, 'problem')
  assert.equal(
    square.sentence,
    "Its shape is 53% off the print area's (200 × 95 mm): make it in the area's proportions.",
  )
  // A portrait file on a landscape area is not assumed to be turned.
  assert.equal(judgeAspect({ width: 1000, height: 2100 }, MUG).verdict, 'problem')
})
