import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, test } from 'node:test'

const ROOT = join(import.meta.dirname, '../../../..')
const SRC = join(ROOT, 'src')

/** Every source file outside the migrations, with its path from the repository's root. */
function sources(dir = SRC): { path: string; text: string }[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name)
    if (entry.isDirectory()) return full.endsWith(join('db', 'migrations')) ? [] : sources(full)
    return entry.name.endsWith('.ts')
      ? [{ path: relative(ROOT, full), text: readFileSync(full, 'utf8') }]
      : []
  })
}

/** The files that write `table`, in SQL text or with Kysely's builders. */
function writersOf(table: string): string[] {
  const sqlWrite = new RegExp(`\\b(insert\\s+into|update|delete\\s+from)\\s+${table}\\b`, 'i')
  const builder = new RegExp(`\\.(insertInto|updateTable|deleteFrom)\\(\\s*'${table}'`)
  return sources()
    .filter(({ text }) => sqlWrite.test(text) || builder.test(text))
    .map(({ path }) => path)
    .sort()
}

describe('one owner per webhook table', () => {
  test('only the outbox writes events, deliveries and the queue, and only it wakes the workers', () => {
    const outbox = /^src\/modules\/webhooks\/outbox\//
    for (const table of ['events', 'webhook_deliveries', 'webhook_queue']) {
      const writers = writersOf(table)
      assert.ok(writers.length > 0, `something writes ${table}`)
      assert.deepEqual(
        writers.filter((path) => !outbox.test(path)),
        [],
        `${table} is written outside the outbox`,
      )
    }
    const notifiers = sources()
      .filter(({ text }) => /pg_notify\s*\(/.test(text))
      .map(({ path }) => path)
    assert.deepEqual(notifiers, [
      'src/modules/webhooks/outbox/feed.repo.ts',
      'src/modules/webhooks/outbox/outbox.repo.ts',
    ])
  })

  test('endpoints are written by their repository, their failure streaks by the result statement, and their probes by the claim', () => {
    assert.deepEqual(writersOf('webhook_endpoints'), [
      'src/modules/webhooks/endpoints/endpoints.repo.ts',
      'src/modules/webhooks/outbox/claim.repo.ts',
      'src/modules/webhooks/outbox/complete.repo.ts',
    ])
  })
})
