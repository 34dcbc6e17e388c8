/**
 * npm test: lint, type-check, then the suite on the embedded database. When
 * CI=true (or TEST_DATABASE_URL is set) the suite runs a second time against
 * PostgreSQL and Redis, and fails if either is unreachable instead of skipping.
 */
import { spawnSync } from 'node:child_process'
import { Socket } from 'node:net'

const ci = process.env.CI === 'true' || process.env.CI === '1'
const extraArgs = process.argv.slice(2)

function run(title: string, command: string, args: string[], env: NodeJS.ProcessEnv = process.env): void {
  console.log(`\n=== ${title} ===`)
  const result = spawnSync(command, args, { stdio: 'inherit', env })
  if (result.status !== 0) {
    console.error(`\n${title} failed (exit ${result.status ?? result.signal})`)
    process.exit(result.status ?? 1)
  }
}

function reachable(url: string, defaultPort: number): Promise<boolean> {
  const u = new URL(url)
  return new Promise((resolve) => {
    const socket = new Socket()
    socket.setTimeout(3000)
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('timeout', () => {
      socket.destroy()
      resolve(false)
    })
    socket.once('error', () => resolve(false))
    socket.connect(Number(u.port || defaultPort), u.hostname)
  })
}

const testArgs = [
  '--test',
  '--test-concurrency=2',
  '--test-timeout=120000',
  ...(extraArgs.length ? extraArgs : ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts']),
]
const bin = (name: string) => `node_modules/.bin/${name}`

if (!extraArgs.length) {
  run('lint (biome)', bin('biome'), ['check', '--error-on-warnings', '.'])
  run('type-check (tsc --noEmit)', bin('tsc'), ['--noEmit', '-p', '.'])
  // The client as published: the library against browser types only, the CLI against Node's.
  for (const project of [
    'packages/client/tsconfig.json',
    'packages/client/tsconfig.cli.json',
    'web/tsconfig.json',
  ]) {
    run(`type-check ${project}`, bin('tsc'), ['--noEmit', '-p', project])
  }
  // npm ci builds it (its prepare script); built again so that dist/ matches the source under test.
  for (const project of ['packages/client/tsconfig.json', 'packages/client/tsconfig.cli.json']) {
    run(`build ${project}`, bin('tsc'), ['-p', project])
  }
  // The dashboard's bundle, built by npm ci too; again so that the browser tests run the source under test.
  run('build web (vite)', 'npm', ['run', 'build', '-w', 'web'])
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

// The embedded pass needs no server; under CI it still gets Redis, whose tests
// (the shared rate limit) do not depend on the database.
const embeddedEnv: NodeJS.ProcessEnv = { ...process.env }
delete embeddedEnv.TEST_DATABASE_URL
if (server) embeddedEnv.TEST_REDIS_URL = redisUrl
else delete embeddedEnv.TEST_REDIS_URL
run('tests on embedded PostgreSQL (PGlite)', process.execPath, testArgs, embeddedEnv)

if (server) {
  run('tests on PostgreSQL and Redis', process.execPath, testArgs, {
    ...process.env,
    TEST_DATABASE_URL: databaseUrl,
    TEST_REDIS_URL: redisUrl,
  })
}
