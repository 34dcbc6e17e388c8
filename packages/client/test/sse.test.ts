import assert from 'node:assert/strict'
import { test } from 'node:test'
import { readEvents } from '../src/cli/sse.ts'

async function parse(chunks: string[]) {
  async function* source() {
    for (const c of chunks) yield new TextEncoder().encode(c)
  }
  const out = []
  for await (const e of readEvents(source())) out.push(e)
  return out
}

test('SSE frames: any line ending, split anywhere (even inside CRLF or a UTF-8 character), comments skipped', async () => {
  const text =
    ': keepalive\r\n\r\nid: c-1\r\nevent: order.received\r\ndata: {"n":"Grüße"}\r\n\r\nevent: ping\rdata: a\rdata: b\rretry: 2000\r\r'
  const bytes = new TextEncoder().encode(text)
  const expected = [
    { event: 'order.received', data: '{"n":"Grüße"}', id: 'c-1', retry: undefined },
    { event: 'ping', data: 'a\nb', id: undefined, retry: 2000 },
  ]
  assert.deepEqual(await parse([text]), expected)
  for (let cut = 1; cut < bytes.length; cut++) {
    async function* split() {
      yield bytes.slice(0, cut)
      yield bytes.slice(cut)
    }
    const out = []
    for await (const e of readEvents(split())) out.push(e)
    assert.deepEqual(out, expected, `cut at byte ${cut}`)
  }
  assert.deepEqual(
    await parse(['data: no blank line at the end\n']),
    [],
    'an unfinished frame is not dispatched',
  )
})
