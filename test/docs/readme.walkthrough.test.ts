import assert from 'node:assert/strict'
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { test } from 'node:test'
import { section, taggedBlocks } from '../helpers/markdown.ts'
import { collectOutput, freePort } from '../helpers/service-process.ts'
import { waitUntil } from '../helpers/wait.ts'

/**
 * The README's walkthrough, run as a new integrator would paste it: the block
 * marked `walkthrough:service` in one shell (it ends in `npm start`), the
 * blocks marked `walkthrough` in order in another, from a directory that looks
 * like a fresh clone (no data, no tmp/), on free ports.
 */
const TOOLS = ['bash', 'curl', 'jq', 'openssl', 'npm']
const missing = TOOLS.filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0)
const skip = missing.length > 0 ? `needs ${missing.join(', ')}` : false

/** Every setting the service reads is left out, as on a machine where nothing is configured. */
const CONFIG_VARIABLES =
  /^(PORT|HOST|PUBLIC_BASE_URL|DATA_DIR|DATABASE_.*|OPERATOR_TOKEN|S3_.*|REDIS_.*|RATE_LIMIT_.*|WEBHOOK_.*|UPLOAD_.*|LOG_LEVEL|NODE_EXTRA_CA_CERTS|NODE_TEST_CONTEXT|HOOK_PORT)$/

/** A shell of its own process group, so that everything it starts can be stopped together. */
function shell(script: string, cwd: string, env: NodeJS.ProcessEnv) {
  const child = spawn('bash', ['-c', script], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  // 'close': every process that shares the shell's output has ended, not just the shell.
  const exited = new Promise<number | null>((done) => child.once('close', (code) => done(code)))
  return { child, output: collectOutput(child), exited }
}

function stopGroup(child: ChildProcess) {
  try {
    process.kill(-child.pid!, 'SIGTERM')
  } catch {
    // Already gone.
  }
}

test('the README walkthrough runs as written', { skip, timeout: 360_000 }, async (t) => {
  const walkthrough = section(readFileSync('README.md', 'utf8'), '## Walkthrough')
  const [serviceBlock, ...others] = taggedBlocks(walkthrough, 'walkthrough:service')
  const steps = taggedBlocks(walkthrough, 'walkthrough')
  assert.ok(serviceBlock && others.length === 0, 'one block starts the service')
  assert.ok(steps.length >= 7, `the steps are marked (${steps.length} found)`)

  const clone = mkdtempSync(join(tmpdir(), 'svc-walkthrough-'))
  for (const entry of ['package.json', 'node_modules', 'src', 'scripts', 'examples']) {
    symlinkSync(resolve(entry), join(clone, entry))
  }
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env)) if (!CONFIG_VARIABLES.test(name)) env[name] = value
  env.PORT = String(await freePort())
  env.HOOK_PORT = String(await freePort())

  const service = shell(`set -e\n${serviceBlock}`, clone, env)
  t.after(async () => {
    stopGroup(service.child)
    await service.exited
    rmSync(clone, { recursive: true, force: true })
  })
  // A first start on a fresh DATA_DIR creates the database (initdb: about 4 s of CPU, then the
  // migrations); on a machine shared with other work that can take a minute or more.
  await waitUntil(() => service.output().includes('service ready'), 'the service', {
    timeoutMs: 150_000,
    details: service.output,
  })

  // Each step stops at its first failing command, as `set -e` makes it.
  const script = ['set -euo pipefail', ...steps.map((step, i) => `echo "=== step ${i + 1}"\n${step}`)]
  const user = shell(script.join('\n'), clone, env)
  t.after(() => stopGroup(user.child))
  const timer = setTimeout(() => stopGroup(user.child), 150_000)
  const code = await user.exited
  clearTimeout(timer)
  const out = user.output()
  assert.equal(code, 0, `the walkthrough failed:\n${out}\n--- service:\n${service.output()}`)

  // What the user sees in terminal 2.
  assert.match(out, /Live key: +svc_live_\w+/)
  assert.match(out, /"environment": "live"/, 'ping with the live key')
  assert.match(out, /"external_order_id": "WEB-1001"[\s\S]*"text": "Hello Jo"/, 'order with personalization')
  assert.match(out, /^200$/m, 'the same order again is 200')
  assert.equal(out.match(/"size_bytes": \d+/g)?.length, 2, 'both files uploaded')
  assert.match(out, /"name": "artwork.png",\s+"role": "artwork"[\s\S]*"name": "proof.pdf"/)
  const polled = [...out.matchAll(/\{"external_order_id":"(WEB-\d+)","status":"(\w+)"/g)].map((m) =>
    m.slice(1),
  )
  assert.deepEqual(polled, [
    ['WEB-1001', 'pending'],
    ['WEB-1002', 'pending'],
    ['WEB-1002', 'completed'],
  ])
  // The delivery log, newest first: the last event may still be on its way, the first has arrived.
  assert.match(out, /\{"event_type":"order.production_completed","status":"(succeeded|pending)"/)
  assert.match(out, /\{"event_type":"ping","status":"succeeded","attempts":1,"response_status":200\}/)

  // What the receiver printed: every event verified, in order, then the redelivery.
  const log = join(clone, 'tmp', 'receiver.log')
  const events = () =>
    existsSync(log) ? [...readFileSync(log, 'utf8').matchAll(/ (verified|duplicate) (\S+) (\S+)/g)] : []
  await waitUntil(() => events().length >= 7, 'the redelivery', {
    details: () => readFileSync(log, 'utf8'),
  })
  assert.doesNotMatch(readFileSync(log, 'utf8'), /rejected/)
  assert.deepEqual(
    events().map((m) => `${m[1]} ${m[2]}`),
    [
      'verified ping',
      'verified order.received',
      'verified order.received',
      'verified order.production_started',
      'verified order_item.completed',
      'verified order.production_completed',
      'duplicate order.received',
    ],
  )
  const ids = events().map((m) => m[3])
  assert.equal(ids[6], ids[2], 'the redelivery carries the event id of WEB-1002 order.received')
})
