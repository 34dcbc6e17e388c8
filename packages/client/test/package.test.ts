import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'

const _root = fileURLToPath(new URL('../../../', import.meta.url))
const pkg = fileURLToPath(new URL('../', import.meta.url))
const _GENERATED = join(pkg, 'src/generated/openapi.ts')

describe('@order-intake/client as published', () => {
  test('dist/ (built by the prepare script at install) exports what src/ exports', async () => {
    assert.ok(existsSync(join(pkg, 'dist/index.js')), 'dist/ is built by npm ci (prepare)')
    assert.ok(existsSync(join(pkg, 'dist/index.d.ts')))
    const built = await import(join(pkg, 'dist/index.js'))
    const source = await import('../src/index.ts')
    assert.deepEqual(Object.keys(built).sort(), Object.keys(source).sort())
    const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'))
    // The library needs nothing; the CLI reads event streams with eventsource-parser (dependency-free).
    assert.deepEqual(manifest.dependencies ?? {}, { 'eventsource-parser': '^3.1.1' })
    assert.equal(manifest.bin['order-intake'], 'dist/cli.js')
    assert.ok(existsSync(join(pkg, manifest.exports['.'].types)))
  })

  test('the library part uses nothing of Node and no package (it runs in browsers); only the CLI does', () => {
    const files = readdirSync(join(pkg, 'dist'), { recursive: true, encoding: 'utf8' }).filter(
      (f) => f.endsWith('.js') && f !== 'cli.js' && !f.startsWith('cli/'),
    )
    assert.ok(files.includes('index.js') && files.includes('webhooks.js'))
    for (const f of files) {
      const code = readFileSync(join(pkg, 'dist', f), 'utf8')
      assert.doesNotMatch(code, /from ['"]node:|require\(|\bprocess\.|\bBuffer\b/, f)
      assert.doesNotMatch(code, /from ['"][^'".]/, `${f} imports a package`)
    }
  })

  test("the CLI runs on the machine's own Node (20 here) as well as on the project's", () => {
    const nodes = [process.execPath, ...['/usr/bin/node', '/usr/local/bin/node'].filter(existsSync)]
    for (const node of nodes) {
      const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim()
      assert.ok(Number(/^v(\d+)/.exec(version)?.[1]) >= 20, `${node} ${version}`)
      const help = spawnSync(node, [join(pkg, 'dist/cli.js'), '--help'], { encoding: 'utf8' })
      assert.equal(help.status, 0, `${node} ${version}: ${help.stderr}`)
      assert.match(help.stdout, /order-intake listen --forward-to/)
      const lib = spawnSync(
        node,
        [
          '--input-type=module',
          '-e',
          `import('${join(pkg, 'dist/index.js')}').then(async (m) => console.log(await m.signWebhook('{}', 'whsec_x', 1)))`,
        ],
        { encoding: 'utf8' },
      )
      assert.equal(lib.status, 0, `${node} ${version}: ${lib.stderr}`)
      assert.match(lib.stdout, /^t=1,v1=[0-9a-f]{64}\n$/)
    }
  })
})
