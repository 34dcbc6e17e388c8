import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { compressFiles, compressInto, compressibleFiles } from '../../scripts/compress-assets.ts'
import { freshCopies } from '../../src/modules/docs/compressed.ts'

describe('compressed copies of static files (scripts/compress-assets.ts)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-compress-'))
  after(() => rmSync(dir, { recursive: true, force: true }))
  const text = 'body { color: #123456; margin: 0 auto; }\n'.repeat(200)

  test('NAME.br and NAME.gz beside each compressible file, decompressing to it; none where it would not pay', async () => {
    const from = join(dir, 'build')
    const nested = join(from, 'nested')
    mkdirSync(nested, { recursive: true })
    for (const [file, content] of [
      [join(from, 'app.css'), text],
      [join(nested, 'app.js'), `console.log(${JSON.stringify(text)})\n`],
      [join(from, 'tiny.js'), 'x'],
      [join(from, 'photo.png'), text],
    ] as const) {
      writeFileSync(file, content)
    }
    assert.deepEqual(compressibleFiles(from), ['app.css', 'nested/app.js', 'tiny.js'])
    const result = await compressFiles(from, compressibleFiles(from))
    for (const file of ['app.css', 'nested/app.js']) {
      const original = readFileSync(join(from, file))
      assert.deepEqual(brotliDecompressSync(readFileSync(join(from, `${file}.br`))), original, file)
      assert.deepEqual(gunzipSync(readFileSync(join(from, `${file}.gz`))), original, file)
      const entry = result.find((r) => r.file === file)!
      assert.ok(entry.br! < entry.gz! && entry.gz! < original.length / 5, JSON.stringify(entry))
    }
    assert.equal(existsSync(join(from, 'tiny.js.br')), false, 'one byte: a copy would be larger')
    assert.equal(existsSync(join(from, 'tiny.js.gz')), false)
    assert.equal(existsSync(join(from, 'photo.png.br')), false, 'not a compressible type')
  })

  test('a cache folder is used only while its manifest names the source files as they are', async () => {
    const source = join(dir, 'source')
    const cache = join(dir, 'cache', 'copies')
    mkdirSync(source, { recursive: true })
    writeFileSync(join(source, 'a.css'), text)
    writeFileSync(join(source, 'b.js'), text)
    const entry = { source, files: ['a.css', 'b.js'], cache }
    assert.equal(freshCopies(entry), undefined, 'no copies yet')
    await compressInto(source, entry.files, cache)
    assert.equal(freshCopies(entry), cache)
    assert.ok(existsSync(join(cache, 'a.css.br')) && existsSync(`${cache}.json`))

    assert.equal(freshCopies({ ...entry, files: [...entry.files, 'c.svg'] }), undefined, 'a file added since')
    assert.equal(freshCopies({ ...entry, files: ['a.css'] }), undefined, 'a file removed since')
    writeFileSync(join(source, 'a.css'), `${text}/* edited */\n`)
    assert.equal(freshCopies(entry), undefined, 'a file changed since')
    await compressInto(source, entry.files, cache)
    assert.equal(freshCopies(entry), cache)
    utimesSync(join(source, 'b.js'), new Date(), new Date(Date.now() + 5000))
    assert.equal(freshCopies(entry), undefined, 'a file touched since')

    writeFileSync(join(cache, 'old.js.br'), 'left over')
    await compressInto(source, ['a.css'], cache)
    assert.equal(existsSync(join(cache, 'old.js.br')), false, 'the folder is made anew')
    assert.equal(existsSync(join(cache, 'b.js.br')), false)
  })
})
