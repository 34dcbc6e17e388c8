import type { ClaimedDelivery } from '../outbox/claim.repo.ts'

/**
 * How one worker shares its attempts between organizations and endpoints.
 *
 * An attempt in the worker is
 *   waiting  claimed, queued under its endpoint in claim order;
 *   on a slot  sent, holding one of the worker's `slots`;
 *   slow     sent, with no answer after the slot's hold time: it gave its slot
 *            back and waits in the slow lane (see demote());
 *   done     its result is reported (or it was given back).
 * An endpoint with an attempt in the lane is slow: its next attempts start in
 * the lane, never on a slot, and only while the lane holds fewer than `lane`
 * attempts. So a slot is held by an attempt for at most the hold time,
 * whatever the receivers do, and a healthy endpoint's attempt finds one free
 * within that time. Every endpoint has at most `endpointCap` attempts in
 * flight. Waiting attempts start in turns: organizations take turns, and the
 * endpoints of one organization take turns within its turn.
 */

/** A claimed attempt, with when it was claimed (performance.now()). */
export interface Claimed {
  row: ClaimedDelivery
  claimedAt: number
}

interface Org {
  id: string
  /** Its endpoints with attempts waiting and below their cap, in turn order. */
  runnable: Set<Endpoint>
  /** Its attempts in the lane. */
  slow: number
  /** Its endpoints the worker keeps state for. */
  endpoints: number
}

interface Endpoint {
  id: string
  org: Org
  queue: Claimed[]
  /** Attempts in flight, on a slot or in the lane. */
  busy: number
  /** Of those, attempts in the lane. */
  slow: number
}

/** An attempt taken with next(): in the lane (`slow`) or on a slot since `startedAt` (performance.now()). */
export interface Ticket {
  item: Claimed
  slow: boolean
  startedAt: number
  /** The event loop's lag counted so far when it started (see demoteAged()). */
  lagAtStart: number
}

/** Which endpoints the next claim leaves out, and how many attempts it takes at most for some. */
export interface ClaimPlan {
  exclude: string[]
  /** Slow endpoints and the most attempts a claim takes for each. */
  limits: Map<string, number>
}

export class FairShare {
  /** Attempts waiting. */
  size = 0
  /** Of those, attempts of slow endpoints: they wait for a place in the lane, not for a slot. */
  laneWaiting = 0
  /** Attempts on slots. */
  fast = 0
  /** Attempts in the lane. */
  slow = 0
  readonly #endpoints = new Map<string, Endpoint>()
  readonly #orgs = new Map<string, Org>()
  /** Organizations with a runnable endpoint, in turn order. */
  readonly #turns = new Set<Org>()
  /** Attempts on slots, oldest first. */
  readonly #onSlots = new Set<Ticket>()
  #lastSweep: number
  /** Time the sweeps came late by, in all: the event loop was busy, not the receivers. */
  #lag = 0

  readonly limits: {
    slots: number
    lane: number
    endpointCap: number
    /** How long an attempt may hold a slot waiting for its answer. */
    holdMs: number
  }

  readonly #now: () => number

  /** `now`: the clock of claims and sweeps, performance.now() (tests hold it still). */
  constructor(limits: FairShare['limits'], now: () => number = () => performance.now()) {
    this.limits = limits
    this.#now = now
    this.#lastSweep = now()
  }

  push(item: Claimed) {
    const endpoint = this.#endpoint(item.row)
    endpoint.queue.push(item)
    this.size++
    if (endpoint.slow > 0) this.laneWaiting++
    if (endpoint.busy < this.limits.endpointCap) this.#ready(endpoint)
  }

  /**
   * The next attempt to send, counted in flight (`slow`: in the lane, else on
   * a slot); undefined if none may start now.
   */
  next(): Ticket | undefined {
    const slotFree = this.fast < this.limits.slots && this.size > this.laneWaiting
    const laneFree = this.slow < this.limits.lane && this.laneWaiting > 0
    if (!slotFree && !laneFree) return undefined
    for (const org of this.#turns) {
      for (const endpoint of org.runnable) {
        const slow = endpoint.slow > 0
        if (slow ? !laneFree : !slotFree) continue
        const item = endpoint.queue.shift()!
        this.size--
        endpoint.busy++
        if (slow) {
          this.laneWaiting--
          this.slow++
          endpoint.slow++
          org.slow++
        } else this.fast++
        // To the back of the turn order, the endpoint within its organization's.
        org.runnable.delete(endpoint)
        if (endpoint.queue.length > 0 && endpoint.busy < this.limits.endpointCap) org.runnable.add(endpoint)
        this.#turns.delete(org)
        if (org.runnable.size > 0) this.#turns.add(org)
        const ticket = { item, slow, startedAt: this.#now(), lagAtStart: this.#lag }
        if (!slow) this.#onSlots.add(ticket)
        return ticket
      }
    }
    return undefined
  }

  /**
   * Attempts on slots for longer than the hold time give their slots back and
   * wait in the lane; returns how many did. Called every `periodMs`; the time
   * a sweep comes late by does not count towards the hold time (the event
   * loop was busy, and answers may be waiting unread).
   */
  demoteAged(now: number, periodMs: number): number {
    const gap = now - this.#lastSweep
    if (gap > 2 * periodMs) this.#lag += gap - periodMs
    this.#lastSweep = now
    let moved = 0
    for (const ticket of this.#onSlots) {
      if (now - ticket.startedAt - (this.#lag - ticket.lagAtStart) < this.limits.holdMs) break
      this.#onSlots.delete(ticket)
      ticket.slow = true
      const endpoint = this.#endpoints.get(ticket.item.row.endpoint_id)!
      this.fast--
      this.slow++
      endpoint.org.slow++
      // The endpoint turns slow: its waiting attempts now wait for the lane.
      if (endpoint.slow++ === 0) this.laneWaiting += endpoint.queue.length
      moved++
    }
    return moved
  }

  /** An attempt taken with next() has ended. */
  done(ticket: Ticket) {
    const endpoint = this.#endpoints.get(ticket.item.row.endpoint_id)!
    endpoint.busy--
    if (ticket.slow) {
      this.slow--
      endpoint.org.slow--
      if (--endpoint.slow === 0) this.laneWaiting -= endpoint.queue.length
    } else {
      this.fast--
      this.#onSlots.delete(ticket)
    }
    if (endpoint.queue.length > 0) this.#ready(endpoint)
    else if (endpoint.busy === 0) this.#forget(endpoint)
  }

  /**
   * Endpoints whose oldest waiting attempt was claimed before `since`: not
   * keeping up (a slow receiver at its cap with a backlog, or every slot
   * taken). A fast endpoint's waiting attempts go within milliseconds.
   */
  crowded(since: number): string[] {
    const out: string[] = []
    for (const [id, endpoint] of this.#endpoints) {
      if (endpoint.queue.length > 0 && endpoint.queue[0]!.claimedAt < since) out.push(id)
    }
    return out
  }

  /**
   * What the next claim takes: crowded endpoints are left out; a slow
   * endpoint gets no more than it can start, at most its cap in flight and
   * waiting, and the lane's free places are shared between organizations,
   * those with the fewest attempts in the lane first.
   */
  claimPlan(since: number): ClaimPlan {
    const exclude = this.crowded(since)
    const limits = new Map<string, number>()
    const wants = new Map<Org, { load: number; endpoints: { id: string; want: number }[] }>()
    for (const [id, endpoint] of this.#endpoints) {
      if (endpoint.slow === 0 || (endpoint.queue.length > 0 && endpoint.queue[0]!.claimedAt < since)) continue
      const entry = wants.get(endpoint.org) ?? { load: endpoint.org.slow, endpoints: [] }
      entry.load += endpoint.queue.length
      entry.endpoints.push({ id, want: this.limits.endpointCap - endpoint.busy - endpoint.queue.length })
      wants.set(endpoint.org, entry)
    }
    const groups = [...wants.values()]
    let room = this.limits.lane - this.slow - this.laneWaiting
    // Water-filling: one place at a time to the organization with the fewest.
    const wanting = groups.filter((g) => g.endpoints.some((e) => e.want > 0))
    while (room > 0 && wanting.length > 0) {
      let least = 0
      for (let i = 1; i < wanting.length; i++) if (wanting[i]!.load < wanting[least]!.load) least = i
      const group = wanting[least]!
      // Within it, to the endpoint that wants the most.
      let most = group.endpoints[0]!
      for (const e of group.endpoints) if (e.want > most.want) most = e
      most.want--
      limits.set(most.id, (limits.get(most.id) ?? 0) + 1)
      group.load++
      room--
      if (!group.endpoints.some((e) => e.want > 0)) wanting.splice(least, 1)
    }
    for (const group of groups) {
      for (const { id } of group.endpoints) if (!limits.has(id)) exclude.push(id)
    }
    return { exclude, limits }
  }

  /** Removes and returns every waiting attempt (of one endpoint, or all). */
  drop(endpointId?: string): Claimed[] {
    const ids = endpointId === undefined ? [...this.#endpoints.keys()] : [endpointId]
    const out: Claimed[] = []
    for (const id of ids) {
      const endpoint = this.#endpoints.get(id)
      if (!endpoint || endpoint.queue.length === 0) continue
      out.push(...endpoint.queue)
      this.size -= endpoint.queue.length
      if (endpoint.slow > 0) this.laneWaiting -= endpoint.queue.length
      endpoint.queue = []
      endpoint.org.runnable.delete(endpoint)
      if (endpoint.org.runnable.size === 0) this.#turns.delete(endpoint.org)
      if (endpoint.busy === 0) this.#forget(endpoint)
    }
    return out
  }

  #endpoint(row: ClaimedDelivery): Endpoint {
    let endpoint = this.#endpoints.get(row.endpoint_id)
    if (endpoint) return endpoint
    let org = this.#orgs.get(row.organization_id)
    if (!org) {
      org = { id: row.organization_id, runnable: new Set(), slow: 0, endpoints: 0 }
      this.#orgs.set(org.id, org)
    }
    org.endpoints++
    endpoint = { id: row.endpoint_id, org, queue: [], busy: 0, slow: 0 }
    this.#endpoints.set(endpoint.id, endpoint)
    return endpoint
  }

  /** Below its cap with attempts waiting: it takes part in the turns (keeping its place if it already does). */
  #ready(endpoint: Endpoint) {
    if (endpoint.busy >= this.limits.endpointCap) return
    endpoint.org.runnable.add(endpoint)
    this.#turns.add(endpoint.org)
  }

  #forget(endpoint: Endpoint) {
    this.#endpoints.delete(endpoint.id)
    if (--endpoint.org.endpoints === 0) this.#orgs.delete(endpoint.org.id)
  }
}
