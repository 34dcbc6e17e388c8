/** What scripts/test.ts prints after the suite: from the timings reporter's lines. */

export interface Pass {
  name: string
  /** How the summary names the pass beside a file, when there are two. */
  label: string
  seconds?: number
}

export type FileRun = { pass: number; file: string } & (
  | { ms: number; idleMs: number; passed: number; failed: number; skipped: number }
  | { skip: string; test: string }
)

/** A process alive this long after its last test has left something open. */
const IDLE_MS = 2000
const SLOWEST = 10

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`

export function summary(passes: Pass[], results: FileRun[]): string {
  const lines = ['', '=== summary ===']
  const files = results.filter((r) => 'ms' in r)
  const label = (pass: number) => (passes.length > 1 ? ` (${passes[pass]!.label})` : '')
  for (const [i, pass] of passes.entries()) {
    const ran = files.filter((r) => r.pass === i)
    if (pass.seconds === undefined) continue
    const count = (key: 'passed' | 'failed' | 'skipped') => ran.reduce((n, r) => n + r[key], 0)
    lines.push(
      `${pass.name}: ${ran.length} files, ${count('passed')} passed, ${count('failed')} failed, ` +
        `${count('skipped')} skipped, in ${seconds(pass.seconds * 1000)}`,
    )
  }

  lines.push('', "Time per folder (the sum of its files' times, then tests):")
  for (const [i, pass] of passes.entries()) {
    const byFolder = new Map<string, { ms: number; tests: number }>()
    for (const r of files.filter((f) => f.pass === i)) {
      const folder = r.file.slice(0, r.file.lastIndexOf('/'))
      const sum = byFolder.get(folder) ?? { ms: 0, tests: 0 }
      sum.ms += r.ms
      sum.tests += r.passed + r.failed + r.skipped
      byFolder.set(folder, sum)
    }
    if (byFolder.size === 0) continue
    if (passes.length > 1) lines.push(`  ${pass.label}:`)
    for (const [folder, sum] of [...byFolder].sort((a, b) => b[1].ms - a[1].ms)) {
      lines.push(`  ${seconds(sum.ms).padStart(8)}  ${String(sum.tests).padStart(4)} tests  ${folder}`)
    }
  }

  lines.push('', `The ${SLOWEST} slowest files:`)
  for (const r of [...files].sort((a, b) => b.ms - a.ms).slice(0, SLOWEST)) {
    lines.push(`  ${seconds(r.ms).padStart(8)}  ${r.file}${label(r.pass)}`)
  }

  const idle = files.filter((r) => r.idleMs >= IDLE_MS)
  if (idle.length) {
    lines.push('', 'Files whose process lived on after their last test (a timer or socket left open):')
    for (const r of idle) lines.push(`  ${seconds(r.idleMs).padStart(8)}  ${r.file}${label(r.pass)}`)
  }

  const skips = new Map<string, Set<string>>()
  for (const r of results) {
    if (!('skip' in r)) continue
    const where = skips.get(r.skip) ?? new Set<string>()
    where.add(`${r.file}${label(r.pass)}`)
    skips.set(r.skip, where)
  }
  for (const [reason, where] of skips) {
    lines.push('', `Skipped: ${reason}`, ...[...where].map((f) => `  ${f}`))
  }
  return lines.join('\n')
}
