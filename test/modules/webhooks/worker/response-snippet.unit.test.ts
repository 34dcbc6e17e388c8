import assert from 'node:assert/strict'
import { PassThrough, Readable } from 'node:stream'
import { describe, test } from 'node:test'
import {
  firstChars,
  readSnippet,
  SNIPPET_CHARS,
} from '../../../../src/modules/webhooks/worker/response-snippet.ts'

const body = (...chunks: (string | Buffer)[]) => Readable.from(chunks.map((c) => Buffer.from(c)))

describe('response snippet', () => {
  test('an empty body has no snippet; a short one is kept whole', async () => {
    assert.equal(await readSnippet(body()), null)
    assert.equal(await readSnippet(body('ok')), 'ok')
    assert.equal(await readSnippet(body('NULL')), 'NULL')
  })

  test('the first 1024 characters, counted as code points: a surrogate pair is one', async () => {
    assert.equal(SNIPPET_CHARS, 1024)
    const emoji = '😀'.repeat(1500)
    const snippet = await readSnippet(body(emoji))
    assert.equal(snippet, '😀'.repeat(1024))
    assert.equal(snippet!.length, 2048)
    assert.equal(firstChars(`a${'😀'.repeat(3)}`, 3), 'a😀😀')
    assert.equal(firstChars('short', 10), 'short')
  })

  test('a character split across chunks stays whole; invalid bytes and NUL become U+FFFD', async () => {
    const euro = Buffer.from('€')
    assert.equal(await readSnippet(body(euro.subarray(0, 1), euro.subarray(1))), '€')
    assert.equal(await readSnippet(body(Buffer.from([0x61, 0xff, 0x62]))), 'a\uFFFDb')
    assert.equal(await readSnippet(body('a\u0000b')), 'a\uFFFDb')
  })

  test('stops reading once it has enough bytes, without waiting for the end', async () => {
    const endless = new PassThrough()
    endless.write(Buffer.alloc(SNIPPET_CHARS * 4, 'x'))
    assert.equal(await readSnippet(endless), 'x'.repeat(SNIPPET_CHARS))
    assert.ok(endless.destroyed, 'the rest of the body is discarded')
  })

  test('a body cut off keeps what came', async () => {
    const broken = new PassThrough()
    const snippet = readSnippet(broken)
    broken.write('partial')
    setImmediate(() => broken.destroy(new Error('socket hang up')))
    assert.equal(await snippet, 'partial')
  })
})
