import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import { sanitizeSvg } from '../../../src/modules/uploads/svg.ts'
import { createSvgSanitizer, SvgQueueTimeout } from '../../../src/modules/uploads/svg-pool.ts'
import { allowedFixtures } from '../../fixtures/files.ts'
import { rectSvg, tracedSvg } from '../../fixtures/svg-large.ts'
import { SVG_XSS_VECTORS } from '../../fixtures/svg-xss.ts'

const load = (bytes: Buffer | string) => async () => Buffer.from(bytes)

describe('SVG sanitizing in worker processes', () => {
  const pool = createSvgSanitizer()
  after(() => pool.close())

  test('the same result as sanitizing in-thread, for the fixtures and the XSS corpus', async () => {
    const files = [
      ...allowedFixtures()
        .filter((f) => f.contentType === 'image/svg+xml')
        .map((f) => f.bytes.toString('utf8')),
      ...SVG_XSS_VECTORS.map((v) => v.svg),
      tracedSvg(500).toString('utf8'),
    ]
    for (const source of files) {
      const expected = sanitizeSvg(source)
      const outcome = await pool.sanitize(load(source))
      if (expected === undefined) {
        assert.deepEqual(outcome, { kind: 'malformed' })
      } else {
        assert.equal(outcome.kind, 'ok')
        assert.equal(outcome.kind === 'ok' && outcome.svg.toString('utf8'), expected)
      }
    }
  })

  test('a file over the limits is refused before it is parsed', async () => {
    const started = performance.now()
    const outcome = await pool.sanitize(load(rectSvg(500_000)))
    assert.deepEqual(outcome, {
      kind: 'too_complex',
      message: 'The SVG file has more than 150000 nodes (elements, attributes, texts and comments).',
    })
    assert.ok(performance.now() - started < 20_000)
  })
})

describe('SVG workers: limits of time, memory and waiting', () => {
  test('a file that takes longer than the time limit is refused; the next file is sanitized', async () => {
    const pool = createSvgSanitizer({ timeLimitMs: 300 })
    try {
      assert.deepEqual(await pool.sanitize(load(tracedSvg(20_000))), {
        kind: 'too_complex',
        message: 'Sanitizing the SVG file takes longer than 0.3 s.',
      })
      const small = allowedFixtures().find((f) => f.contentType === 'image/svg+xml')!.bytes
      // A fresh worker loads jsdom first: allow it more than the time limit above.
      const relaxed = createSvgSanitizer()
      const outcome = await relaxed.sanitize(load(small))
      await relaxed.close()
      assert.equal(outcome.kind, 'ok')
    } finally {
      await pool.close()
    }
  })

  test('a file that needs more memory than the cap is refused, and the process lives on', async () => {
    const pool = createSvgSanitizer({ memoryLimitMb: 160 })
    try {
      assert.deepEqual(await pool.sanitize(load(tracedSvg(30_000))), {
        kind: 'too_complex',
        message: 'Sanitizing the SVG file needs more than 160 MB of memory.',
      })
    } finally {
      await pool.close()
    }
  })

  test("waiting files are taken in turns of owners: one owner's backlog does not hold up another's file", async () => {
    const pool = createSvgSanitizer({ threads: 1 })
    try {
      const finished: string[] = []
      const run = (name: string, owner: string) =>
        pool.sanitize(load(tracedSvg(1_000)), owner).then((outcome) => {
          assert.equal(outcome.kind, 'ok')
          finished.push(name)
        })
      const all = [
        run('a1', 'a'),
        run('a2', 'a'),
        run('a3', 'a'),
        run('b1', 'b'),
        run('a4', 'a'),
        run('b2', 'b'),
      ]
      await Promise.all(all)
      assert.deepEqual(finished, ['a1', 'b1', 'a2', 'b2', 'a3', 'a4'])
    } finally {
      await pool.close()
    }
  })

  test('a file that waits longer than the queue limit for a worker is not started', async () => {
    const pool = createSvgSanitizer({ threads: 1, queueLimitMs: 100 })
    try {
      const first = pool.sanitize(load(tracedSvg(5_000)))
      let loaded = false
      const second = pool.sanitize(async () => {
        loaded = true
        return Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')
      })
      await assert.rejects(second, SvgQueueTimeout)
      assert.equal(loaded, false, 'the file was read although it never ran')
      assert.equal((await first).kind, 'ok')
    } finally {
      await pool.close()
    }
  })
})
