import { sql } from 'kysely'
import type { Database } from './database.ts'

/** The most writes one commit carries. */
const MAX_GROUP = 64

interface Write<T> {
  work: (db: Database) => Promise<T>
  resolve: (value: T) => void
  reject: (err: unknown) => void
}

/**
 * Writes that share commits. On the embedded database every commit is a
 * synchronous write of the WAL to the disk, made on the event loop by the one
 * session every request waits behind; one commit for the writes that queued
 * meanwhile costs one disk write instead of one each. Each write runs in a
 * savepoint of its own, so one that fails leaves the others as they are, and
 * each is answered once the commit holding it has reached the disk (a failed
 * commit fails every write in it). Disabled, a write runs on its own as before.
 */
export function commitGroups(db: Database, enabled: boolean) {
  const queue: Write<unknown>[] = []
  let draining = false

  async function runGroup(group: Write<unknown>[]): Promise<void> {
    if (group.length === 1) {
      const [only] = group
      await only!.work(db).then(only!.resolve, only!.reject)
      return
    }
    const outcomes: ({ ok: true; value: unknown } | { ok: false; err: unknown })[] = []
    try {
      await db.transaction().execute(async (trx) => {
        for (const write of group) {
          await sql`savepoint group_write`.execute(trx)
          try {
            outcomes.push({ ok: true, value: await write.work(trx) })
            await sql`release savepoint group_write`.execute(trx)
          } catch (err) {
            outcomes.push({ ok: false, err })
            await sql`rollback to savepoint group_write`.execute(trx)
            await sql`release savepoint group_write`.execute(trx)
          }
        }
      })
    } catch (err) {
      for (const write of group) write.reject(err)
      return
    }
    group.forEach((write, n) => {
      const outcome = outcomes[n]!
      if (outcome.ok) write.resolve(outcome.value)
      else write.reject(outcome.err)
    })
  }

  async function drain(): Promise<void> {
    try {
      while (queue.length > 0) await runGroup(queue.splice(0, MAX_GROUP))
    } finally {
      draining = false
    }
  }

  /** Runs `work` (one statement or a few) in the next shared commit. */
  return function write<T>(work: (db: Database) => Promise<T>): Promise<T> {
    if (!enabled) return work(db)
    return new Promise<T>((resolve, reject) => {
      queue.push({ work, resolve, reject } as Write<unknown>)
      if (!draining) {
        draining = true
        // The requests read in this turn of the event loop join the first group.
        setImmediate(() => void drain())
      }
    })
  }
}

export type CommitGroups = ReturnType<typeof commitGroups>
