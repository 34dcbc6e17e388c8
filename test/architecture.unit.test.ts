import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { describe, test } from 'node:test'

/**
 * The layout rules of src/ that keep each table with one owner, checked on
 * the source text: a change that breaks them fails here instead of in a
 * reviewer's memory.
 */
const SRC = new URL('../src/', import.meta.url).pathname

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'migrations' ? [] : sourceFiles(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

/** Source without comments, so prose such as "bumps the orders' updated_at" is not read as SQL. */
function code(path: string): string {
  return readFileSync(path, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '')
}

const files = sourceFiles(SRC).map((path) => ({ path: relative(SRC, path), code: code(path) }))
/** modules/<name>/... -> <name>; anything else -> its first directory (http, lib, db) or file. */
const moduleOf = (path: string) => (path.startsWith('modules/') ? path.split('/')[1]! : path.split('/')[0]!)

/** Every table and the one module (or file) that writes it. */
const OWNERS: Record<string, string[]> = {
  organizations: ['organizations'],
  api_keys: ['api-keys'],
  products: ['products'],
  automation_rules: ['automation'],
  automation_versions: ['automation'],
  orders: ['orders'],
  order_items: ['orders'],
  unmatched_skus: ['orders'],
  production_orders: ['production'],
  production_jobs: ['production'],
  production_calendar: ['production'],
  closed_days: ['production'],
  batches: ['production'],
  batch_orders: ['production'],
  stations: ['production'],
  uploads: ['uploads'],
  service_instances: ['system'],
  service_secrets: ['lib'],
  events: ['webhooks'],
  webhook_endpoints: ['webhooks'],
  webhook_deliveries: ['webhooks'],
  webhook_queue: ['webhooks'],
  listen_sessions: ['webhooks'],
  webhook_replays: ['webhooks'],
  webhook_replay_events: ['webhooks'],
  accounts: ['accounts'],
  members: ['accounts'],
  invitations: ['accounts'],
  dashboard_sessions: ['accounts'],
  audit_log: ['audit'],
  api_requests: ['requests'],
  operators: ['accounts'],
  operator_invitations: ['accounts'],
  password_resets: ['accounts'],
  order_event_counters: ['webhooks'],
  webhook_attempts: ['webhooks'],
  webhook_outcome_changes: ['webhooks'],
  webhook_daily_outcomes: ['webhooks'],
  order_changes: ['orders'],
  file_facts: ['preflight'],
  // The order fold queues new orders with files; preflight takes them off.
  preflight_queue: ['preflight', 'orders'],
  order_preflight: ['preflight'],
  order_daily_stats: ['orders'],
  monthly_usage: ['orders'],
  monthly_product_usage: ['orders'],
}

/** The tables of the schema (the DB interface of src/db/schema.ts). */
const TABLES = [
  .../export interface DB \{([^}]*)\}/
    .exec(readFileSync(join(SRC, 'db/schema.ts'), 'utf8'))![1]!
    .matchAll(/^\s*(\w+):/gm),
].map((m) => m[1]!)

/**
 * Statements of one module that embed another module's SQL, each named with
 * why. Creating an order writes the order, its production order and jobs and
 * its event in one statement of data-modifying CTEs (one round trip, no
 * window in which one exists without the others): orders.repo.ts embeds the
 * CTEs that production.repo.ts and the outbox's repository build.
 */
const CROSS_MODULE_SQL: Record<string, string[]> = {
  'modules/orders/orders.repo.ts': [
    'modules/production/production.repo.ts',
    'modules/webhooks/outbox/outbox.repo.ts',
  ],
  // The order fold dates new production orders: how is production's (its calendar).
  'modules/orders/changes/changes.repo.ts': ['modules/production/calendar/calendar.repo.ts'],
  // The usage adds the changes not folded yet: which rows count is the orders module's.
  'modules/usage/usage.repo.ts': ['modules/orders/changes/changes.repo.ts'],
}

/** The files of src/ a file imports (relative imports, type imports included). */
const importsOf = (f: { path: string; code: string }) =>
  [...f.code.matchAll(/(?:from|import\()\s*'(\.{1,2}\/[^']+)'/g)].map((m) =>
    normalize(join(dirname(f.path), m[1]!)),
  )

function writtenTables(source: string): string[] {
  const tables = new Set<string>()
  const builder = /\.(?:insertInto|updateTable|deleteFrom)\(\s*'([a-z_]+)/g
  const raw = /\b(?:insert\s+into|update|delete\s+from)\s+([a-z_]+)\b/gi
  for (const m of source.matchAll(builder)) tables.add(m[1]!)
  for (const m of source.matchAll(raw)) if (TABLES.includes(m[1]!)) tables.add(m[1]!)
  return [...tables]
}

const hasSql = (source: string) =>
  /\.(?:selectFrom|insertInto|updateTable|deleteFrom)\(|\bsql(?:<[^>]*>)?`/.test(source)

describe('architecture', () => {
  test('a table is written only by the module that owns it', () => {
    const foreign: string[] = []
    for (const f of files) {
      for (const table of writtenTables(f.code)) {
        const owners = OWNERS[table]
        assert.ok(owners, `${f.path} writes ${table}, which has no owner in this test`)
        if (!owners.includes(moduleOf(f.path))) foreign.push(`${f.path} writes ${table}`)
      }
    }
    assert.deepEqual(foreign, [])
  })

  test('every table of the schema has an owner', () => {
    assert.ok(TABLES.length > 20, `${TABLES.length} tables read from src/db/schema.ts`)
    assert.deepEqual(
      TABLES.filter((t) => !OWNERS[t]),
      [],
    )
  })

  test("a repository imports no other module's service, and embeds another's SQL only as a named exception", () => {
    const offences: string[] = []
    for (const f of files.filter((f) => f.path.endsWith('.repo.ts'))) {
      for (const target of importsOf(f)) {
        if (!target.startsWith('modules/') || moduleOf(target) === moduleOf(f.path)) continue
        if (target.endsWith('.service.ts')) offences.push(`${f.path} imports ${target}`)
        else if (target.endsWith('.repo.ts') && !CROSS_MODULE_SQL[f.path]?.includes(target))
          offences.push(`${f.path} embeds SQL of ${target}`)
      }
    }
    assert.deepEqual(offences, [])
  })

  test('src/http depends on no module: the app wires modules into it', () => {
    const imports = files
      .filter((f) => f.path.startsWith('http/'))
      .filter((f) => /from '\.\.\/modules\//.test(f.code))
      .map((f) => f.path)
    assert.deepEqual(imports, [])
  })

  test("a module's SQL lives in its *.repo.ts files", () => {
    const elsewhere = files
      .filter((f) => f.path.startsWith('modules/'))
      .filter((f) => hasSql(f.code) && !f.path.endsWith('.repo.ts'))
      .map((f) => f.path)
    assert.deepEqual(elsewhere, [])
  })

  test('services own transactions; functions that lock demand a Transaction<DB>', () => {
    const repos = files.filter((f) => f.path.endsWith('.repo.ts'))
    const opening = repos.filter((f) => /\.transaction\(\)/.test(f.code)).map((f) => f.path)
    assert.deepEqual(opening, [], 'repositories never open a transaction')
    const unlocked: string[] = []
    for (const f of files.filter((f) => f.path.startsWith('modules/'))) {
      // Each top-level function up to the next one.
      for (const fn of f.code.split(/\n(?=export (?:async )?function |(?:async )?function )/)) {
        // A queue claim locks with SKIP LOCKED inside its one UPDATE statement: atomic on its own.
        if (!/\.forUpdate\(\)|for update(?! skip locked)/i.test(fn)) continue
        const signature = fn.slice(0, fn.indexOf(')'))
        if (!signature.includes('Transaction<DB>')) unlocked.push(`${f.path}: ${signature.split('(')[0]}`)
      }
    }
    assert.deepEqual(unlocked, [], 'functions that lock rows take a Transaction<DB>')
  })

  test('the upload service reaches storage only through the FileStorage interface', () => {
    const branching = files
      .filter((f) => f.path.startsWith('modules/') || f.path === 'app.ts')
      .filter((f) => !f.path.startsWith('modules/uploads/storage/'))
      .filter((f) => /\bstorage\.kind\b|\bLocalStorage\b|storage\/local\.ts|storage\/s3\.ts/.test(f.code))
      .map((f) => f.path)
    assert.deepEqual(branching, [])
    const storage = files.find((f) => f.path === 'modules/uploads/storage/storage.ts')!
    assert.doesNotMatch(storage.code, /\bkind\b/, 'FileStorage names operations, not implementations')
  })

  test('route handlers translate no errors and cast no enums', () => {
    const routes = files.filter((f) => f.path.endsWith('.routes.ts'))
    const offences: string[] = []
    for (const f of routes) {
      if (/\bcatch\b/.test(f.code)) offences.push(`${f.path}: catch`)
      if (/new AppError|instanceof/.test(f.code)) offences.push(`${f.path}: error translation`)
      for (const m of f.code.matchAll(/\bas (?!const\b)('[^']*'|[A-Z]\w*)/g))
        offences.push(`${f.path}: as ${m[1]}`)
    }
    assert.deepEqual(offences, [])
  })

  test('no import circle among the files of src/ (type imports included)', () => {
    const known = new Set(files.map((f) => f.path))
    const edges = new Map(files.map((f) => [f.path, importsOf(f).filter((target) => known.has(target))]))
    // Tarjan's strongly connected components: any with more than one file is a circle.
    const index = new Map<string, number>()
    const low = new Map<string, number>()
    const stack: string[] = []
    const circles: string[][] = []
    let next = 0
    const visit = (v: string) => {
      index.set(v, next)
      low.set(v, next++)
      stack.push(v)
      for (const w of edges.get(v)!) {
        if (!index.has(w)) {
          visit(w)
          low.set(v, Math.min(low.get(v)!, low.get(w)!))
        } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
      }
      if (low.get(v) === index.get(v)) {
        const component: string[] = []
        let w: string
        do {
          w = stack.pop()!
          component.push(w)
        } while (w !== v)
        if (component.length > 1 || edges.get(v)!.includes(v)) circles.push(component.sort())
      }
    }
    for (const f of known) if (!index.has(f)) visit(f)
    assert.deepEqual(circles, [])
  })

  test('a route file is named by its folder and its surface; only serve.ts imports the app', () => {
    // modules/<feature>/[<part>/]<folder>.{routes,admin.routes,dashboard.routes,console.routes}.ts
    const misnamed = files
      .filter((f) => f.path.endsWith('.routes.ts') && f.path.startsWith('modules/'))
      .filter((f) => {
        const parts = f.path.split('/')
        const folder = parts.at(-2)!
        return !new RegExp(`^${folder}\\.(?:admin\\.|dashboard\\.|console\\.)?routes\\.ts$`).test(
          parts.at(-1)!,
        )
      })
      .map((f) => f.path)
    assert.deepEqual(misnamed, [])
    assert.deepEqual(
      files.filter((f) => /from '(?:\.\.\/)+app\.ts'|from '\.\/app\.ts'/.test(f.code)).map((f) => f.path),
      ['serve.ts'],
    )
    // The dashboard's plumbing registers no feature's routes: src/app.ts hands it the areas.
    assert.deepEqual(
      files
        .filter((f) => f.path.startsWith('dashboard/'))
        .filter((f) => /from '\.\.\/modules\/[^']+\.routes\.ts'/.test(f.code))
        .map((f) => f.path),
      [],
    )
  })

  test('every feature has one entry (index.ts) that registers all its route files; the app and services.ts go through entries', () => {
    const features = readdirSync(join(SRC, 'modules'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
    const entries = new Set(files.map((f) => f.path))
    assert.deepEqual(
      features.filter((name) => !entries.has(`modules/${name}/index.ts`)),
      [],
      'a feature without modules/<feature>/index.ts',
    )
    const importsOf = (f: { path: string; code: string }) =>
      [...f.code.matchAll(/from '(\.{1,2}\/[^']+)'/g)].map((m) => normalize(join(dirname(f.path), m[1]!)))
    // A route file is imported by its own feature's entry, and by nothing else in src/.
    const strays = files
      .filter((f) => f.path.endsWith('.routes.ts') && f.path.startsWith('modules/'))
      .flatMap((route) => {
        const entry = `modules/${moduleOf(route.path)}/index.ts`
        const importers = files.filter((f) => importsOf(f).includes(route.path)).map((f) => f.path)
        return importers.length === 1 && importers[0] === entry
          ? []
          : [`${route.path} <- ${importers.join(', ')}`]
      })
    assert.deepEqual(strays, [], 'a route file is imported by its own feature entry only')
    for (const wiring of ['app.ts', 'services.ts']) {
      const f = files.find((x) => x.path === wiring)!
      const intoModules = importsOf(f).filter((i) => i.startsWith('modules/'))
      assert.ok(intoModules.length > 0)
      assert.deepEqual(
        intoModules.filter((i) => !/^modules\/[\w-]+\/index\.ts$/.test(i)),
        [],
        `${wiring} takes features from their entries`,
      )
    }
  })

  test("a feature's schemas live in its *.schemas.ts files, not in its route files", () => {
    const schemaInRoutes = files
      .filter((f) => f.path.endsWith('.routes.ts'))
      .filter((f) => /^(?:export )?const \w+ = Type\./m.test(f.code))
      .map((f) => f.path)
    assert.deepEqual(schemaInRoutes, [])
  })

  test('the tests mirror src/: every folder of test/modules/ is a folder of src/modules/', () => {
    const TESTS = new URL('modules/', import.meta.url).pathname
    const folders = (dir: string, base: string): string[] =>
      readdirSync(dir, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .flatMap((e) => [join(base, e.name), ...folders(join(dir, e.name), join(base, e.name))])
    const srcFolders = new Set(folders(join(SRC, 'modules'), ''))
    assert.deepEqual(
      folders(TESTS, '').filter((f) => !srcFolders.has(f)),
      [],
    )
  })

  test('the dashboard takes its API types from its OpenAPI document, not from the service', () => {
    const web = new URL('../web/src/', import.meta.url).pathname
    const dashboardFiles = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
        const path = join(dir, entry.name)
        if (entry.isDirectory()) return entry.name === 'generated' ? [] : dashboardFiles(path)
        return /\.tsx?$/.test(entry.name) ? [path] : []
      })
    const fromService = dashboardFiles(web).flatMap((path) =>
      [...code(path).matchAll(/import\s+(type\s+)?[^']*?from '((?:\.\.\/)+src\/[^']+)'/g)].map((m) => ({
        file: relative(web, path),
        typeOnly: Boolean(m[1]),
        from: m[2]!.replace(/^(?:\.\.\/)+/, ''),
      })),
    )
    // Types, scopes and event types all come from the document: the dashboard imports nothing from src/.
    assert.deepEqual(fromService, [])
  })
})
