/**
 * A node:test reporter that records, for scripts/test.ts, each test file's wall
 * time and what it skipped. It appends JSON lines to the file named by
 * TEST_TIMINGS_FILE:
 * - {file, ms, idleMs, passed, failed, skipped}: ms from the file's start to its
 *   process's exit; idleMs of that after its last test ended (a timer or a
 *   socket left open keeps the process alive);
 * - {file, skip, test}: a skipped test and the reason it gave.
 */
import { appendFileSync } from 'node:fs'
import { relative } from 'node:path'
import type { TestEvent } from 'node:test/reporters'

export default async function* timings(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const out = process.env.TEST_TIMINGS_FILE
  const lastEnded = new Map<string, number>()
  const write = (line: object) => out && appendFileSync(out, `${JSON.stringify(line)}\n`)
  for await (const event of source) {
    const data = event.data as { file?: string } | undefined
    const file = data?.file ? relative(process.cwd(), data.file) : undefined
    if (!file) continue
    if (event.type === 'test:pass' || event.type === 'test:fail') {
      lastEnded.set(file, performance.now())
      const reason = event.data.skip
      if (reason !== undefined && event.type === 'test:pass') {
        write({ file, skip: typeof reason === 'string' ? reason : 'skipped', test: event.data.name })
      }
    } else if (event.type === 'test:summary') {
      const { counts, duration_ms } = event.data
      const ended = lastEnded.get(file)
      write({
        file,
        ms: Math.round(duration_ms),
        idleMs: ended === undefined ? 0 : Math.round(performance.now() - ended),
        passed: counts.passed,
        failed: ((counts as { failed?: number }).failed ?? 0) + counts.cancelled,
        skipped: counts.skipped + counts.todo,
      })
    }
  }
  yield ''
}
