import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { scanBody } from '../../src/http/body-scan.ts'
import type { Shape } from '../../src/http/body-shape.ts'

/**
 * The body scan must agree with JSON.parse on what is JSON, including in the
 * parts it cuts away, and must leave a body it does not cut byte for byte.
 * Random documents and random damage to them, from a fixed seed.
 */

function random(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff
    return seed / 0x80000000
  }
}

const PIECES = [
  'a',
  'Z',
  ' ',
  '\\"',
  '\\\\',
  '\\n',
  '\\u00e9',
  '\\ud83d\\ude00',
  'é',
  '😀',
  '\\/',
  '{',
  ']',
  ',',
]
const NUMBERS = [
  '0',
  '-0',
  '12',
  '-3.25',
  '1e5',
  '2E-3',
  '0.5e+10',
  '1e400',
  '123456789012345678901234567890',
]
const SPACE = ['', ' ', '\n', '\t ', '\r\n']

function json(rand: () => number, depth: number): string {
  const pick = <T>(list: T[]) => list[Math.floor(rand() * list.length)]!
  const ws = () => pick(SPACE)
  const r = rand()
  if (depth > 0 && r < 0.25) {
    const n = Math.floor(rand() * 4)
    const members = Array.from(
      { length: n },
      () => `${ws()}${json(rand, 0)}${ws()}:${ws()}${json(rand, depth - 1)}${ws()}`,
    )
    return members.length ? `{${members.join(',')}}` : `{${ws()}}`
  }
  if (depth > 0 && r < 0.5) {
    const n = Math.floor(rand() * 4)
    const items = Array.from({ length: n }, () => `${ws()}${json(rand, depth - 1)}${ws()}`)
    return items.length ? `[${items.join(',')}]` : `[${ws()}]`
  }
  if (r < 0.75 || depth === 0)
    return `"${Array.from({ length: Math.floor(rand() * 5) }, () => pick(PIECES)).join('')}"`
  return pick([...NUMBERS, 'true', 'false', 'null'])
}

function damage(rand: () => number, text: string): string {
  const at = Math.floor(rand() * (text.length + 1))
  const junk = [
    '"',
    '\\',
    '\\x',
    '\\u12',
    ',',
    ':',
    '}',
    ']',
    '{',
    '[',
    'x',
    '\u0001',
    '-',
    '.',
    'e',
    'tru',
    '\n',
  ]
  switch (Math.floor(rand() * 3)) {
    case 0:
      return text.slice(0, at) + text.slice(at + 1)
    case 1:
      return text.slice(0, at) + junk[Math.floor(rand() * junk.length)] + text.slice(at)
    default:
      return text.slice(0, at)
  }
}

const parses = (text: string) => {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

// Every entry of the root array is cut, so everything is read by the checking part of the scan.
const CUT_ALL: Shape = { array: { items: {}, limit: 0 } }
// Any depth of four, nothing cut: objects of anything, arrays of anything.
const ANY: Shape = (() => {
  let shape: Shape = {}
  for (let i = 0; i < 5; i++) {
    shape = {
      object: { properties: new Map(), additional: shape, limit: 100 },
      array: { items: shape, limit: 100 },
    }
  }
  return shape
})()

describe('the body scan agrees with JSON.parse', () => {
  test('on what is cut: JSON or not, as JSON.parse says', async () => {
    const rand = random(7)
    let invalid = 0
    for (let i = 0; i < 3000; i++) {
      let text = `[${json(rand, 4)}]`
      if (rand() < 0.6) text = damage(rand, text)
      const expected = parses(text)
      if (!expected) invalid++
      const scanned = await scanBody(Buffer.from(text), CUT_ALL, 0)
      assert.equal(scanned !== undefined, expected, `${JSON.stringify(text)}: scan and JSON.parse disagree`)
      if (scanned) assert.equal(JSON.parse(scanned.bytes.toString()).length, 0)
    }
    assert.ok(invalid > 1000, `${invalid} damaged documents`)
  })

  test('what it keeps, it keeps byte for byte', async () => {
    const rand = random(11)
    for (let i = 0; i < 2000; i++) {
      const text = json(rand, 4)
      const scanned = await scanBody(Buffer.from(text), ANY, 0)
      assert.ok(scanned, text)
      assert.equal(scanned.edited, false, text)
      assert.equal(scanned.bytes.toString(), text)
    }
  })
})
