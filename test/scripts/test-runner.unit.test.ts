import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { runsOnce, testFiles } from '../../scripts/test/files.ts'
import { type FileRun, summary } from '../../scripts/test/summary.ts'
import { CHROMIUM_MISSING } from '../helpers/browser.ts'

describe('npm test: which files run where, and what it says at the end', () => {
  test('database tests run on both databases; unit, once, browser, process, CLI, embedded, docs and client files once', () => {
    for (const file of [
      'test/config.unit.test.ts',
      'test/http/errors.once.test.ts',
      'test/dashboard/journey.browser.test.ts',
      'test/main.stop.process.test.ts',
      'test/cli/admin.cli.test.ts',
      'test/db/durability.embedded.test.ts',
      'test/docs/readme.walkthrough.test.ts',
      'packages/client/test/cli.test.ts',
    ]) {
      assert.equal(runsOnce(file), true, file)
    }
    for (const file of [
      'test/modules/orders/orders.routes.test.ts',
      'test/db/database.outage.test.ts',
      'test/db/migrations.test.ts',
    ]) {
      assert.equal(runsOnce(file), false, file)
    }
    const files = testFiles()
    assert.ok(files.includes('test/scripts/test-runner.unit.test.ts'))
    assert.ok(files.some((f) => f.startsWith('packages/client/test/')))
  })

  test('the ten slowest files, files that lived on, and every skip with its reason and files', () => {
    const passes = [
      { name: 'database tests on PGlite', label: 'PGlite', seconds: 12 },
      { name: 'all tests on PostgreSQL', label: 'PostgreSQL', seconds: 20 },
    ]
    const runs: FileRun[] = Array.from({ length: 12 }, (_, i) => ({
      pass: i % 2,
      file: `test/f${i}.test.ts`,
      ms: (i + 1) * 1000,
      idleMs: i === 3 ? 4000 : 10,
      passed: 2,
      failed: i === 0 ? 1 : 0,
      skipped: 0,
    }))
    const reason = CHROMIUM_MISSING
    assert.match(reason, /apt-get install -y chromium/)
    runs.push(
      { pass: 0, file: 'test/a.browser.test.ts', skip: reason, test: 'one' },
      { pass: 0, file: 'test/a.browser.test.ts', skip: reason, test: 'two' },
      { pass: 0, file: 'test/b.browser.test.ts', skip: reason, test: 'three' },
    )
    const lines = summary(passes, runs).split('\n')
    assert.ok(lines.includes('database tests on PGlite: 6 files, 12 passed, 1 failed, 0 skipped, in 12.0 s'))
    assert.ok(lines.includes('all tests on PostgreSQL: 6 files, 12 passed, 0 failed, 0 skipped, in 20.0 s'))
    // Per folder and pass, slowest first: the time of its files and how many tests they ran.
    const folders = lines.slice(
      lines.indexOf("Time per folder (the sum of its files' times, then tests):") + 1,
    )
    assert.equal(folders[0], '  PGlite:')
    assert.equal(folders[1], '    36.0 s    13 tests  test')
    assert.equal(folders[2], '  PostgreSQL:')
    assert.equal(folders[3], '    42.0 s    12 tests  test')
    const slowest = lines.slice(
      lines.indexOf('The 10 slowest files:') + 1,
      lines.indexOf('The 10 slowest files:') + 11,
    )
    assert.deepEqual(slowest[0]!.trim(), '12.0 s  test/f11.test.ts (PostgreSQL)')
    assert.deepEqual(slowest[9]!.trim(), '3.0 s  test/f2.test.ts (PGlite)')
    assert.ok(!lines.some((l) => l.includes('test/f1.test.ts')), 'the two fastest are left out')
    const lived = lines.indexOf(
      'Files whose process lived on after their last test (a timer or socket left open):',
    )
    assert.equal(lines[lived + 1]!.trim(), '4.0 s  test/f3.test.ts (PostgreSQL)')
    const skipped = lines.indexOf(`Skipped: ${reason}`)
    assert.ok(skipped > 0, 'the reason, with how to install Chromium')
    assert.deepEqual(lines.slice(skipped + 1), [
      '  test/a.browser.test.ts (PGlite)',
      '  test/b.browser.test.ts (PGlite)',
    ])
  })
})
