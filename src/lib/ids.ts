import { randomFillSync } from 'node:crypto'

const HEX = Array.from({ length: 256 }, (_, n) => n.toString(16).padStart(2, '0'))

// Random bytes drawn 4 KiB at a time: one call into the system's generator
// for 256 ids instead of one per id.
const POOL_SIZE = 4096
const pool = Buffer.allocUnsafe(POOL_SIZE)
let offset = POOL_SIZE

function random10(): number {
  if (offset + 10 > POOL_SIZE) {
    randomFillSync(pool)
    offset = 0
  }
  const at = offset
  offset += 10
  return at
}

let lastMs = Number.NEGATIVE_INFINITY
let seq = 0

/**
 * Time-ordered UUIDs (v7, RFC 9562): index-friendly, and id order follows
 * creation order. The 48-bit millisecond timestamp is followed by a 31-bit
 * counter that starts at a random value each millisecond and counts up within
 * it (moving on to the next millisecond if it wraps), so ids made by this
 * process are strictly increasing; the last 34 bits are random.
 */
export function newId(): string {
  const r = random10()
  const now = Date.now()
  if (now > lastMs) {
    lastMs = now
    seq = ((pool[r]! & 0x7f) << 24) | (pool[r + 1]! << 16) | (pool[r + 2]! << 8) | pool[r + 3]!
  } else {
    seq = (seq + 1) | 0
    if (seq < 0) {
      seq = 0
      lastMs++
    }
  }
  const ms = lastMs
  return (
    HEX[(ms / 0x10000000000) & 0xff]! +
    HEX[(ms / 0x100000000) & 0xff]! +
    HEX[(ms / 0x1000000) & 0xff]! +
    HEX[(ms / 0x10000) & 0xff]! +
    '-' +
    HEX[(ms / 0x100) & 0xff]! +
    HEX[ms & 0xff]! +
    '-' +
    HEX[0x70 | ((seq >>> 27) & 0x0f)]! +
    HEX[(seq >>> 19) & 0xff]! +
    '-' +
    HEX[0x80 | ((seq >>> 13) & 0x3f)]! +
    HEX[(seq >>> 5) & 0xff]! +
    '-' +
    HEX[((seq << 3) & 0xf8) | (pool[r + 4]! & 0x07)]! +
    HEX[pool[r + 5]!]! +
    HEX[pool[r + 6]!]! +
    HEX[pool[r + 7]!]! +
    HEX[pool[r + 8]!]! +
    HEX[pool[r + 9]!]!
  )
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
export const isUuid = (value: string): boolean => UUID_RE.test(value)
