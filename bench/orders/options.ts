// The command line of bench/orders.bench.ts (--help lists it), the run's temp
// directory and its timestamped log.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'

const { values: flags } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    connections: { type: 'string' },
    keys: { type: 'string' },
    rounds: { type: 'string' },
    'big-requests': { type: 'string' },
    'scale-small': { type: 'string' },
    'scale-large': { type: 'string' },
    'scale-samples': { type: 'string' },
    'skip-big': { type: 'boolean', default: false },
    'skip-scale': { type: 'boolean', default: false },
    'skip-get': { type: 'boolean', default: false },
    'skip-load': { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    diagnose: { type: 'boolean', default: false },
    orgs: { type: 'string' },
    'pg-url': { type: 'string' },
    'what-if': { type: 'string' },
    rules: { type: 'string' },
    keep: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
})

if (flags.help) {
  console.log(`usage: node bench/orders.bench.ts [options]
  --quick               short scenarios (3 s), 10 big orders, 100 k instead of 1 M orders
  --only=pg|pglite      one database only
  --duration=S          seconds per scenario (default 10)     --warmup=S   (default 3)
  --connections=N       autocannon connections (default 20)   --keys=N     live API keys (default 50)
  --rounds=N            alternate ceiling/service N times, report the median (default 1)
  --big-requests=N      sequential 200-item orders measured (default 50)
  --scale-small=N --scale-large=N --scale-samples=N   GET /v1/orders scaling (10000, 1000000, 200)
  --skip-big --skip-scale --skip-get    leave parts out
  --skip-load           no autocannon runs (only the big order and the scaling parts)
  --profile             run the services with --cpu-prof (profiles kept in the temp dir)
  --diagnose            where the time goes: also POST with test keys (no production rows, no event)
  --what-if=SQL         run SQL on the PostgreSQL bench database once the service has migrated it, before
                        the load (an experiment: e.g. drop an index or a foreign key and compare)
  --rules=N             give each organization N automation rules of 10 conditions that all but the
                        last hold for the bench's orders (every condition read, no rule matches)
  --orgs=N              spread the keys over N organizations (PostgreSQL; default 1): shows contention
                        on one organization's rows (foreign-key locks on the organizations row)
  --pg-url=URL          PostgreSQL to create the bench databases on (default postgres://postgres@127.0.0.1:5432/test)
  --keep                keep temp dirs and the bench database`)
  process.exit(0)
}

const num = (value: string | undefined, fallback: number) => (value === undefined ? fallback : Number(value))
export const opts = {
  only: flags.only as 'pg' | 'pglite' | undefined,
  duration: num(flags.duration, flags.quick ? 3 : 10),
  warmup: num(flags.warmup, flags.quick ? 1 : 3),
  connections: num(flags.connections, 20),
  keys: num(flags.keys, 50),
  rounds: num(flags.rounds, 1),
  bigRequests: num(flags['big-requests'], flags.quick ? 10 : 50),
  scaleSmall: num(flags['scale-small'], 10_000),
  scaleLarge: num(flags['scale-large'], flags.quick ? 100_000 : 1_000_000),
  scaleSamples: num(flags['scale-samples'], flags.quick ? 60 : 200),
  skipBig: flags['skip-big'],
  skipScale: flags['skip-scale'],
  skipGet: flags['skip-get'],
  skipLoad: flags['skip-load'],
  profile: flags.profile,
  diagnose: flags.diagnose,
  orgs: num(flags.orgs, 1),
  whatIf: flags['what-if'],
  rules: num(flags.rules, 0),
  pgUrl: flags['pg-url'] ?? 'postgres://postgres@127.0.0.1:5432/test',
  keep: flags.keep,
}
if (opts.only && opts.only !== 'pg' && opts.only !== 'pglite') {
  console.error('--only must be pg or pglite')
  process.exit(2)
}

export const workDir = mkdtempSync(join(tmpdir(), 'orders-bench-'))
export const log = (message: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${message}`)
