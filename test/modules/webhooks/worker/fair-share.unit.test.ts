import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { ClaimedDelivery } from '../../../../src/modules/webhooks/outbox/claim.repo.ts'
import { type Claimed, FairShare, type Ticket } from '../../../../src/modules/webhooks/worker/fair-share.ts'

let seq = 0
/** `n` claimed attempts of an endpoint of an organization, claimed at `claimedAt`. */
function claimed(org: string, endpoint: string, n: number, claimedAt = performance.now()): Claimed[] {
  return Array.from({ length: n }, () => ({
    row: { id: `d${++seq}`, endpoint_id: endpoint, organization_id: org } as ClaimedDelivery,
    claimedAt,
  }))
}

/** Takes attempts with next() until none may start; returns their tickets. */
function drain(share: FairShare): Ticket[] {
  const out: Ticket[] = []
  for (let t = share.next(); t; t = share.next()) out.push(t)
  return out
}

const PERIOD = 50

/** Sweeps every PERIOD ms (as the dispatcher does) for `ms`, without moving the clock for real. */
function sweepFor(share: FairShare, from: number, ms: number): number {
  let moved = 0
  for (let now = from + PERIOD; now <= from + ms; now += PERIOD) moved += share.demoteAged(now, PERIOD)
  return moved
}

describe('fair share of a worker between organizations and endpoints', () => {
  test('organizations take turns for slots, and the endpoints of one take turns within its turns', () => {
    const share = new FairShare({ slots: 6, lane: 8, endpointCap: 16, holdMs: 250 })
    for (const e of ['a1', 'a2', 'a3']) for (const item of claimed('A', e, 3)) share.push(item)
    for (const item of claimed('B', 'b1', 3)) share.push(item)
    const started = drain(share).map((t) => t.item.row.endpoint_id)
    // Organization A has three endpoints and B one: still A, B, A, B.
    assert.deepEqual(started, ['a1', 'b1', 'a2', 'b1', 'a3', 'b1'])
    assert.equal(share.fast, 6)
    assert.equal(share.size, 6)
  })

  test('an endpoint has at most its cap in flight; the others go on', () => {
    const share = new FairShare({ slots: 10, lane: 8, endpointCap: 2, holdMs: 250 })
    for (const item of claimed('A', 'a1', 5)) share.push(item)
    for (const item of claimed('B', 'b1', 1)) share.push(item)
    const tickets = drain(share)
    assert.deepEqual(
      tickets.map((t) => t.item.row.endpoint_id),
      ['a1', 'b1', 'a1'],
    )
    share.done(tickets[0]!)
    assert.equal(share.next()?.item.row.endpoint_id, 'a1')
    assert.equal(share.next(), undefined)
  })

  test('an attempt unanswered after the hold time gives its slot back; its endpoint then starts attempts in the lane only, up to the lane’s size', () => {
    const start = performance.now()
    const share = new FairShare({ slots: 2, lane: 3, endpointCap: 16, holdMs: 250 }, () => start)
    for (const item of claimed('A', 'hang', 6)) share.push(item)
    const first = drain(share)
    assert.equal(first.length, 2, 'both slots taken')
    assert.ok(first.every((t) => !t.slow))
    assert.equal(sweepFor(share, start, 200), 0, 'within the hold time: still on their slots')
    assert.equal(sweepFor(share, start + 200, 100), 2)
    assert.deepEqual([share.fast, share.slow], [0, 2])
    assert.equal(share.laneWaiting, 4, 'the endpoint is slow: its waiting attempts wait for the lane')
    // One more fits in the lane (3); none takes a slot.
    const more = drain(share)
    assert.deepEqual(
      more.map((t) => t.slow),
      [true],
    )
    assert.equal(share.fast, 0)
    // Another organization's attempt gets a slot at once.
    for (const item of claimed('B', 'ok', 1)) share.push(item)
    const other = share.next()
    assert.equal(other?.item.row.endpoint_id, 'ok')
    assert.equal(other?.slow, false)
    // A slow attempt ends: the next of that endpoint starts in the lane.
    share.done(first[0]!)
    assert.equal(share.next()?.slow, true)
    assert.equal(share.next(), undefined)
  })

  test('a sweep that comes late does not count its lateness towards the hold time', () => {
    const start = performance.now()
    const share = new FairShare({ slots: 1, lane: 4, endpointCap: 4, holdMs: 250 }, () => start)
    for (const item of claimed('A', 'a', 1)) share.push(item)
    share.demoteAged(start, PERIOD)
    drain(share)
    // The event loop was busy for a second: the answer may be waiting unread.
    assert.equal(share.demoteAged(start + 1000, PERIOD), 0)
    assert.equal(sweepFor(share, start + 1000, 150), 0)
    assert.equal(sweepFor(share, start + 1150, 150), 1)
  })

  test('claims: crowded endpoints are left out, a slow endpoint gets what it can start, within the lane’s free places', () => {
    const start = performance.now()
    const share = new FairShare({ slots: 100, lane: 12, endpointCap: 4, holdMs: 250 }, () => start)
    // X has two hanging endpoints, Y one; each has four attempts on slots.
    for (const e of ['x1', 'x2']) for (const item of claimed('X', e, 4, start)) share.push(item)
    for (const item of claimed('Y', 'y1', 4, start)) share.push(item)
    const tickets = drain(share)
    assert.equal(tickets.length, 12)
    sweepFor(share, start, 300)
    assert.equal(share.slow, 12)
    // One attempt of each ends: each may start one more, and the lane has
    // three free places.
    for (const e of ['x1', 'x2', 'y1']) share.done(tickets.find((t) => t.item.row.endpoint_id === e)!)
    // A healthy endpoint with attempts waiting but not crowded; another crowded.
    for (const item of claimed('Z', 'fresh', 2, start + 290)) share.push(item)
    for (const item of claimed('Z', 'stale', 2, start)) share.push(item)
    const since = start + 250
    const plan = share.claimPlan(since)
    assert.ok(plan.exclude.includes('stale'))
    assert.ok(
      !plan.exclude.includes('fresh') && !plan.limits.has('fresh'),
      'a healthy endpoint is not limited',
    )
    assert.deepEqual(Object.fromEntries([...plan.limits].sort()), { x1: 1, x2: 1, y1: 1 })
    // With the lane full, every slow endpoint is left out, though below its cap.
    const full = new FairShare({ slots: 100, lane: 9, endpointCap: 4, holdMs: 250 }, () => start)
    for (const e of ['x1', 'x2', 'y1'])
      for (const item of claimed(e[0]!.toUpperCase(), e, 4, start)) full.push(item)
    const inFlight = drain(full)
    sweepFor(full, start, 300)
    for (const e of ['x1', 'x2', 'y1']) full.done(inFlight.find((t) => t.item.row.endpoint_id === e)!)
    assert.equal(full.slow, 9)
    const fullPlan = full.claimPlan(since)
    assert.equal(fullPlan.limits.size, 0)
    assert.deepEqual([...fullPlan.exclude].sort(), ['x1', 'x2', 'y1'])
  })

  test('the lane’s places go to the organization with the fewest in it', () => {
    const start = performance.now()
    const share = new FairShare({ slots: 100, lane: 10, endpointCap: 8, holdMs: 250 }, () => start)
    for (const item of claimed('X', 'x1', 6, start)) share.push(item)
    for (const item of claimed('Y', 'y1', 2, start)) share.push(item)
    drain(share)
    sweepFor(share, start, 300)
    // X holds 6 in the lane, Y 2: the two free places go to Y.
    assert.deepEqual(Object.fromEntries(share.claimPlan(start + 250).limits), { y1: 2 })
  })
})
