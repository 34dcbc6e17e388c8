import { globSync } from 'node:fs'

/**
 * The suite's files, and which of them run on both databases.
 *
 * A test file runs on the embedded database and, under CI, again on PostgreSQL,
 * unless what it tests cannot differ between the two; those run once (under CI
 * in the PostgreSQL pass, where a test that wants a server finds one). What can
 * differ: SQL statements and their plans, transactions, locks, concurrency,
 * migrations, behaviour across instances. The file name says which:
 */
const ONCE = [
  // code without a database
  /\.unit\.test\.ts$/,
  // the service's answers (their shape, texts, limits, the HTTP layer) whose
  // reads and writes other files already run on both databases
  /\.once\.test\.ts$/,
  // pages in Chromium
  /\.browser\.test\.ts$/,
  // the service, or a command line, as a process
  /\.process\.test\.ts$/,
  /\.cli\.test\.ts$/,
  // the embedded database itself
  /\.embedded\.test\.ts$/,
  // the documentation
  /^test\/docs\//,
  // the client package (its end-to-end test starts a service of its own)
  /^packages\//,
]

export const TEST_GLOBS = ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts']

export function testFiles(): string[] {
  return TEST_GLOBS.flatMap((glob) => globSync(glob)).sort()
}

/** Whether a file (relative to the project) runs once rather than on each database. */
export function runsOnce(file: string): boolean {
  return ONCE.some((pattern) => pattern.test(file))
}
