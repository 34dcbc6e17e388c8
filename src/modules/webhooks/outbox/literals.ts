/*
 * The worker's statements run for every few dozen attempts, so they are kept
 * cheap on the Node side: constant SQL texts (one prepared statement per
 * connection, no query building per batch) and array parameters written here
 * in one pass, where the driver would escape every element with regular
 * expressions. See docs/decisions/2026-11-25-webhook-worker-bookkeeping.md.
 */

/**
 * The worker's bookkeeping commits without waiting for the WAL to reach disk
 * (synchronous_commit off for the statement's own transaction, evaluated in
 * the statement). Safe for at-least-once delivery: a database crash can lose
 * the last moments of claims and results, and those attempts are sent again.
 */
export const ASYNC_COMMIT = `set_config('synchronous_commit', 'off', true)`

const QUOTED = /["\\]/g

/**
 * A PostgreSQL array literal. Plain elements (uuids, numbers, identifiers)
 * need no quoting; with `quote`, every element is quoted and its `"` and `\`
 * escaped (any text).
 */
export function arrayLiteral(values: readonly (string | number | null)[], quote = false): string {
  const element = (v: string | number | null) =>
    v === null ? 'NULL' : quote ? `"${String(v).replace(QUOTED, '\\$&')}"` : v
  return `{${values.map(element).join(',')}}`
}
