import type { FastifyBaseLogger } from 'fastify'
import type { Database, Listen } from '../../../db/database.ts'
import type { Clock } from '../../../lib/clock.ts'
import { feedReplay, runningReplays } from '../outbox/feed.repo.ts'
import { REPLAYS_CHANNEL } from '../outbox/outbox.service.ts'

/**
 * Replayed attempts an endpoint may have due at once: a fresh event of that
 * endpoint waits behind at most this many (with 16 in flight per endpoint,
 * four of the receiver's round trips).
 */
export const REPLAY_AHEAD = 64

export interface ReplayFeederOptions {
  db: Database
  clock: Clock
  log: FastifyBaseLogger
  listen: Listen
  /** Replayed attempts due at once per endpoint (default REPLAY_AHEAD). */
  ahead?: number
  /**
   * Longest pause between feeding steps while replays run (default 250 ms):
   * stored results wake the feeder earlier, so it follows its own worker's pace
   * without asking the database in between.
   */
  stepMs?: number
  /** Longest pause between looks for replays when none runs (default 1 s; a new replay wakes it). */
  idleMs?: number
}

/**
 * Feeds running replays into the delivery queue, a few attempts at a time
 * (outbox/feed.repo.ts), so that fresh events are never queued behind a
 * replay's thousands. Every worker instance runs one; each step locks the
 * replay's row (SKIP LOCKED), so one instance feeds a replay at any moment and
 * a replay goes on after a restart from where its rows say it stands.
 */
export class ReplayFeeder {
  readonly #options: Required<Omit<ReplayFeederOptions, 'listen'>> & { listen: Listen }
  #running = false
  /** The last pass found replays still running. */
  #active = false
  #wake: (() => void) | undefined
  #loop: Promise<void> | undefined
  #unlisten: (() => Promise<void>) | undefined

  constructor(options: ReplayFeederOptions) {
    this.#options = { ahead: REPLAY_AHEAD, stepMs: 250, idleMs: 1000, ...options }
  }

  async start(): Promise<void> {
    if (this.#running) return
    this.#running = true
    this.#unlisten = await this.#options.listen(REPLAYS_CHANNEL, () => this.#wake?.())
    this.#loop = this.#run()
  }

  async stop(): Promise<void> {
    if (!this.#running) return
    this.#running = false
    this.#wake?.()
    await this.#unlisten?.().catch(() => {})
    await this.#loop
  }

  /** Attempt results were stored: room may have freed for a running replay's next attempts. */
  resultsStored(): void {
    if (this.#active) this.#wake?.()
  }

  /** One pass over the running replays: whether any is still running, and attempts queued. */
  async step(): Promise<{ running: boolean; fed: number }> {
    const { db, clock, ahead } = this.#options
    let running = false
    let fed = 0
    for (const id of await runningReplays(db)) {
      const step = await feedReplay(db, id, clock.now(), ahead)
      fed += step.fed
      if (step.status !== 'completed' && step.status !== 'cancelled') running = true
    }
    return { running, fed }
  }

  async #run(): Promise<void> {
    while (this.#running) {
      let delay = this.#options.idleMs
      try {
        const { running, fed } = await this.step()
        this.#active = running
        // After a step that queued attempts, look again soon: another replay may have room.
        if (running) delay = fed > 0 ? Math.min(20, this.#options.stepMs) : this.#options.stepMs
      } catch (err) {
        if (!this.#running) break
        this.#options.log.error({ err }, 'could not feed webhook replays')
      }
      if (this.#running) await this.#sleep(delay)
    }
  }

  async #sleep(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms)
      this.#wake = () => {
        clearTimeout(timer)
        resolve()
      }
    })
    this.#wake = undefined
  }
}
