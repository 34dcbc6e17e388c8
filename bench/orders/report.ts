// What the scenarios measured (rows of the table, checks against the targets,
// notes) and the summary printed at the end.
import type { LoadResult } from './load.ts'
import { opts } from './options.ts'

export interface Row {
  database: string
  scenario: string
  rps?: number
  p50: number
  p99: number
  ratio?: number
  /** The same comparison from CPU per request (ceiling's / this one's): steadier on a shared machine. */
  cpuRatio?: number | undefined
  note?: string | undefined
  cpu?: { server?: number; db?: number; client: number }
}
export interface Check {
  target: string
  measured: string
  pass: boolean
}
export const rows: Row[] = []
export const checks: Check[] = []
export const notes: string[] = []

const totalCpu = (cpu: LoadResult['cpu']) => (cpu.server ?? Number.NaN) + (cpu.db ?? 0) + cpu.client

/** This scenario against the ceiling: req/s ratio and CPU-per-request ratio. */
export function against(result: LoadResult, ceiling: LoadResult): { ratio: number; cpuRatio: number } {
  return { ratio: result.rps / ceiling.rps, cpuRatio: totalCpu(ceiling.cpu) / totalCpu(result.cpu) }
}

export function printReport(): void {
  const fmt = (v: number | undefined, digits = 1) =>
    v === undefined || Number.isNaN(v) ? '-' : v.toFixed(digits)
  const table = [
    [
      'database',
      'scenario',
      'req/s',
      'p50 ms',
      'p99 ms',
      'ratio',
      'CPU ratio',
      'CPU ms/req srv / pg / client',
      'note',
    ],
    ...rows.map((r) => [
      r.database,
      r.scenario,
      fmt(r.rps, 0),
      fmt(r.p50),
      fmt(r.p99),
      fmt(r.ratio, 2),
      fmt(r.cpuRatio, 2),
      r.cpu ? [r.cpu.server, r.cpu.db, r.cpu.client].map((v) => fmt(v, 2)).join(' / ') : '',
      r.note ?? '',
    ]),
  ]
  const widths = table[0]!.map((_, col) => Math.max(...table.map((row) => row[col]!.length)))
  const line = (row: string[]) => `| ${row.map((cell, col) => cell.padEnd(widths[col]!)).join(' | ')} |`
  console.log('')
  console.log(
    `orders benchmark: ${opts.duration} s per scenario, ${opts.connections} connections, ${opts.keys} live keys, ` +
      `warmup ${opts.warmup} s, node ${process.version}`,
  )
  console.log(line(table[0]!))
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`)
  for (const row of table.slice(1)) console.log(line(row))
  console.log(
    'ratio: req/s over the bare route of the same database, measured in the same run (PGlite rows over\n' +
      'the faster of the two bare PGlite routes). CPU ms/req: user+system CPU\n' +
      'per completed request of the server process (all threads), of the PostgreSQL backends serving the\n' +
      "bench database, and of this process (the load generator). CPU ratio: the ceiling's total CPU per\n" +
      "request over this row's, the throughput ratio to expect when the machine is CPU-bound; it moves\n" +
      'less than req/s when other processes share the cores.',
  )
  console.log('')
  for (const c of checks) console.log(`${c.pass ? 'PASS' : 'FAIL'}  ${c.target}: ${c.measured}`)
  if (notes.length) {
    console.log('')
    for (const n of notes) console.log(n)
  }
}
