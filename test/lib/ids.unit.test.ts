import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { isUuid, newId } from '../../src/lib/ids.ts'

describe('newId', () => {
  it('makes version 7 UUIDs carrying the current millisecond', () => {
    const before = Date.now()
    const id = newId()
    const after = Date.now()
    assert.ok(isUuid(id), id)
    assert.equal(id[14], '7')
    assert.match(id[19]!, /[89ab]/)
    const ms = Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16)
    assert.ok(ms >= before && ms <= after + 1, `${ms} not in [${before}, ${after}]`)
  })

  it('makes strictly increasing, distinct ids however many come in one millisecond', () => {
    const ids = Array.from({ length: 20_000 }, () => newId())
    for (let n = 1; n < ids.length; n++) assert.ok(ids[n - 1]! < ids[n]!, `${ids[n - 1]} then ${ids[n]}`)
    assert.equal(new Set(ids).size, ids.length)
  })

  it('draws the random part anew for every id', () => {
    const tails = new Set(Array.from({ length: 1000 }, () => newId().slice(-10)))
    assert.ok(tails.size > 990, `${tails.size} distinct tails of 1000`)
  })
})
