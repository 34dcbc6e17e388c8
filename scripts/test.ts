/**
 * npm test: lint, type-check, then the suite.
 * - Without a server (a new machine): every test file once, on the embedded database.
 * - With CI=true or TEST_DATABASE_URL: the database tests on the embedded
 *   database, then every file against PostgreSQL and Redis; it fails if either
 *   is unreachable instead of skipping. Which files are database tests:
 *   scripts/test/files.ts.
 * `npm test -- FILE...` runs just those files (no lint or type-check).
 * At the end: the slowest files, files whose process outlived their tests, and
 * every skipped test with its reason.
 */
import { spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, globSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { BROWSER_ENDPOINT_ENV, CHROMIUM, CHROMIUM_OPTIONS } from '../test/helpers/browser.ts'
import {
  dataDirTemplate,
  dropLeftoverPgDatabases,
  dropRunPgDatabases,
  pgliteTemplate,
  pgTemplate,
} from '../test/helpers/databases.ts'
import { SUITE_NODE_FLAGS } from '../test/helpers/service-process.ts'
import { runsOnce, testFiles } from './test/files.ts'
import { reachable } from './test/reachable.ts'
import { type FileRun, type Pass, summary } from './test/summary.ts'

const ci = process.env.CI === 'true' || process.env.CI === '1'
const chosen = process.argv.slice(2)

function run(title: string, command: string, args: string[], env: NodeJS.ProcessEnv = process.env): boolean {
  console.log(`\n=== ${title} ===`)
  const result = spawnSync(command, args, { stdio: 'inherit', env })
  if (result.status === 0) return true
  console.error(`\n${title} failed (exit ${result.status ?? result.signal})`)
  return false
}

function mustRun(title: string, command: string, args: string[]): void {
  if (!run(title, command, args)) process.exit(1)
}

/** The newest modification time among paths (directories searched). */
function newest(paths: string[]): number {
  let latest = 0
  for (const path of paths) {
    for (const file of statSync(path).isDirectory() ? globSync(`${path}/**/*`) : [path]) {
      latest = Math.max(latest, statSync(file).mtimeMs)
    }
  }
  return latest
}

/** Builds an output again only when a source changed after it was built (npm ci has just built it). */
function buildIfStale(title: string, output: string, sources: string[], command: string, args: string[]) {
  if (existsSync(output) && statSync(output).mtimeMs >= newest(sources)) {
    console.log(`\n=== ${title}: up to date ===`)
    return
  }
  mustRun(title, command, args)
}

const bin = (name: string) => `node_modules/.bin/${name}`

/**
 * Runs the checks side by side (each is one single-threaded process), longest
 * first, as many at once as there are cores; prints each one's output, in
 * the order given, once it ends; exits when any failed.
 */
async function mustRunAll(checks: { title: string; command: string; args: string[] }[]): Promise<void> {
  const began = performance.now()
  let next = 0
  const outcomes: Promise<{ ok: boolean; output: string }>[] = []
  const start = (i: number) =>
    new Promise<{ ok: boolean; output: string }>((resolve) => {
      const { command, args } = checks[i]!
      const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] })
      let output = ''
      child.stdout.on('data', (chunk: Buffer) => (output += chunk))
      child.stderr.on('data', (chunk: Buffer) => (output += chunk))
      child.on('close', (code) => resolve({ ok: code === 0, output }))
    })
  const lanes = Array.from({ length: Math.min(availableParallelism(), checks.length) }, async () => {
    while (next < checks.length) {
      const i = next++
      outcomes[i] = start(i)
      await outcomes[i]
    }
  })
  await Promise.all(lanes)
  let failed = false
  for (const [i, check] of checks.entries()) {
    const { ok, output } = await outcomes[i]!
    console.log(`\n=== ${check.title} ===`)
    if (output.trim()) console.log(output.trimEnd())
    if (!ok) {
      console.error(`\n${check.title} failed`)
      failed = true
    }
  }
  console.log(`\nchecks done in ${((performance.now() - began) / 1000).toFixed(1)} s`)
  if (failed) process.exit(1)
}

if (!chosen.length) {
  const typeCheck = (project: string) => ({
    title: `type-check ${project} (tsc --noEmit)`,
    command: bin('tsc'),
    args: ['--noEmit', '-p', project],
  })
  // The client as published: the library against browser types only, the CLI against Node's.
  await mustRunAll([
    typeCheck('tsconfig.json'),
    typeCheck('web/tsconfig.json'),
    typeCheck('packages/client/tsconfig.cli.json'),
    typeCheck('packages/client/tsconfig.json'),
    { title: 'lint (biome)', command: bin('biome'), args: ['check', '--error-on-warnings', '.'] },
  ])
  // The tests run the client's dist/ and the dashboard's bundle: the source under test.
  const client = ['packages/client/src', 'packages/client/package.json']
  buildIfStale(
    'build the client',
    'packages/client/dist/index.js',
    [...client, 'packages/client/tsconfig.json'],
    bin('tsc'),
    ['-p', 'packages/client/tsconfig.json'],
  )
  buildIfStale(
    'build the client CLI',
    'packages/client/dist/cli.js',
    [...client, 'packages/client/tsconfig.cli.json'],
    bin('tsc'),
    ['-p', 'packages/client/tsconfig.cli.json'],
  )
  buildIfStale(
    'build the dashboard (vite)',
    'web/dist/index.html',
    ['web/src', 'web/index.html', 'web/vite.config.ts', 'web/package.json'],
    'npm',
    ['run', 'build', '-w', 'web'],
  )
}

// The suite runs in a zone that is not UTC, so no code can rely on the machine's
// zone being UTC (historic instants are where that shows).
process.env.TZ = process.env.TZ || 'Europe/Berlin'

const server = ci || Boolean(process.env.TEST_DATABASE_URL)
const databaseUrl = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test'
const redisUrl = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379'
if (server) {
  for (const [name, url, port] of [
    ['PostgreSQL', databaseUrl, 5432],
    ['Redis', redisUrl, 6379],
  ] as const) {
    if (!(await reachable(url, port))) {
      console.error(`\n${name} is not reachable at ${new URL(url).host}; the server suite cannot run.`)
      process.exit(1)
    }
  }
}

console.log('\n=== migrated template databases ===')
const started = performance.now()
await pgliteTemplate()
await dataDirTemplate()
if (server) {
  await dropLeftoverPgDatabases(databaseUrl)
  await pgTemplate(databaseUrl)
}
console.log(`ready in ${((performance.now() - started) / 1000).toFixed(1)} s`)

const files = chosen.length ? chosen.flatMap((arg) => globSync(arg)).sort() : testFiles()

// The embedded pass needs no server; under CI it still gets Redis, whose tests
// (the shared rate limit) do not depend on the database.
const embeddedEnv: NodeJS.ProcessEnv = { ...process.env }
delete embeddedEnv.TEST_DATABASE_URL
if (server) embeddedEnv.TEST_REDIS_URL = redisUrl
else delete embeddedEnv.TEST_REDIS_URL

const passes: (Pass & { files: string[]; env: NodeJS.ProcessEnv })[] = server
  ? [
      {
        name: 'database tests on embedded PostgreSQL (PGlite)',
        label: 'PGlite',
        files: files.filter((f) => !runsOnce(f)),
        env: embeddedEnv,
      },
      {
        name: 'all tests on PostgreSQL and Redis',
        label: 'PostgreSQL',
        files,
        env: { ...process.env, TEST_DATABASE_URL: databaseUrl, TEST_REDIS_URL: redisUrl },
      },
    ]
  : [{ name: 'all tests on embedded PostgreSQL (PGlite)', label: 'PGlite', files, env: embeddedEnv }]

// One Chromium for the whole run: each browser test file connects to it and
// opens contexts of its own, instead of launching a browser per file.
const browserServer =
  files.some((f) => f.endsWith('.browser.test.ts')) && existsSync(CHROMIUM)
    ? await chromium.launchServer(CHROMIUM_OPTIONS)
    : undefined
if (browserServer) for (const pass of passes) pass.env[BROWSER_ENDPOINT_ENV] = browserServer.wsEndpoint()

// Longest files first (as timed by earlier runs on this machine), so that no
// long file starts last and runs alone at the end.
const CACHE = join('node_modules', '.cache', 'order-intake-tests')
const HISTORY = join(CACHE, 'file-times.json')
const history: Record<string, number> = existsSync(HISTORY) ? JSON.parse(readFileSync(HISTORY, 'utf8')) : {}
// A fresh checkout (CI's) has no history: the times of a full CI run, kept in the repository, order it
// (refresh it from HISTORY after a full `CI=true npm test` when files come or change much).
const BASELINE = join('scripts', 'test', 'file-times.json')
const baseline: Record<string, number> = existsSync(BASELINE)
  ? JSON.parse(readFileSync(BASELINE, 'utf8'))
  : {}
const expected = (pass: Pass, file: string) =>
  history[`${pass.label} ${file}`] ??
  baseline[`${pass.label} ${file}`] ??
  (/\.(browser|process|cli)\.test\.ts$/.test(file) ? 60_000 : 10_000)

// Two files per core: a test process waits much of its time (timers, pages, child processes), and
// with one per core the CPU sat idle a fifth of the pass (80% busy, against 93% with two).
const slots = Number(process.env.TEST_CONCURRENCY || 2 * Math.max(1, availableParallelism()))
// Every file is a process that loads the same modules: Node keeps them compiled on disk.
const compileCache = { NODE_COMPILE_CACHE: join(CACHE, 'compile') }
const timings = mkdtempSync(join(tmpdir(), 'test-timings-'))
// Names this run's PostgreSQL test databases, which are dropped after the run.
const testRun = randomBytes(4).toString('hex')
const results: FileRun[] = []

/**
 * One file of a pass, in a test runner of its own: its report is held and
 * printed whole when it ends, so that files running side by side never
 * interleave. Answers whether it passed.
 */
function runFile(i: number, file: string): Promise<boolean> {
  const pass = passes[i]!
  const out = join(timings, `pass-${i}.jsonl`)
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        ...SUITE_NODE_FLAGS,
        '--test',
        '--test-timeout=120000',
        '--test-reporter=spec',
        '--test-reporter-destination=stdout',
        '--test-reporter=./scripts/test/timings-reporter.ts',
        '--test-reporter-destination=stdout',
        file,
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...pass.env, ...compileCache, TEST_TIMINGS_FILE: out, TEST_RUN: testRun },
      },
    )
    const output: Buffer[] = []
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk))
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk))
    child.on('close', (code, signal) => {
      const label = passes.length > 1 ? ` (${pass.label})` : ''
      process.stdout.write(`\n--- ${file}${label} ---\n`)
      process.stdout.write(Buffer.concat(output))
      if (code !== 0) console.error(`${file}${label} failed (exit ${code ?? signal})`)
      resolve(code === 0)
    })
  })
}

// One queue for every pass, longest files first (as timed by earlier runs), taken by `slots`
// lanes: the passes' files run side by side, so that no long file of one pass runs alone at its
// end while the other waits (one pass after the other, each ended on one or two files).
const queue = passes
  .flatMap((pass, i) => pass.files.map((file) => ({ i, file, ms: expected(pass, file) })))
  .sort((a, b) => b.ms - a.ms)
for (const pass of passes) {
  if (pass.files.length > 0) console.log(`\n=== ${pass.name} (${pass.files.length} files) ===`)
}
const began = passes.map(() => Number.POSITIVE_INFINITY)
const ended = passes.map(() => 0)
let failed = false
let next = 0
await Promise.all(
  Array.from({ length: Math.min(slots, queue.length) }, async () => {
    while (next < queue.length) {
      const job = queue[next++]!
      began[job.i] = Math.min(began[job.i]!, performance.now())
      if (!(await runFile(job.i, job.file))) failed = true
      ended[job.i] = Math.max(ended[job.i]!, performance.now())
    }
  }),
)
for (const [i, pass] of passes.entries()) {
  if (pass.env.TEST_DATABASE_URL) await dropRunPgDatabases(pass.env.TEST_DATABASE_URL, testRun)
  if (pass.files.length > 0) pass.seconds = (ended[i]! - began[i]!) / 1000
  const out = join(timings, `pass-${i}.jsonl`)
  const lines = existsSync(out) ? readFileSync(out, 'utf8').trim().split('\n').filter(Boolean) : []
  for (const line of lines) results.push({ pass: i, ...JSON.parse(line) })
}

await browserServer?.close()

for (const r of results) if ('ms' in r) history[`${passes[r.pass]!.label} ${r.file}`] = r.ms
mkdirSync(CACHE, { recursive: true })
writeFileSync(HISTORY, JSON.stringify(history, null, 1))

console.log(summary(passes, results))
process.exit(failed ? 1 : 0)
