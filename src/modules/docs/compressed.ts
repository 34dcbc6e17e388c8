import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { PROJECT_ROOT } from './guides.ts'
import { RENDERER_VERSION } from './pages.ts'

/** The renderer's self-contained browser build, served from node_modules. */
export const RENDERER_DIR = join(
  dirname(fileURLToPath(import.meta.resolve('@scalar/api-reference'))),
  'browser',
)
export const OWN_ASSETS_DIR = fileURLToPath(new URL('./assets/', import.meta.url))
/** The service's cache: compressed copies of files it serves but does not build. */
export const COMPRESSED_DIR = join(PROJECT_ROOT, 'node_modules/.cache/order-intake-service')

/**
 * What `npm ci` compresses for /docs (scripts/compress-assets.ts, run as
 * `prepare`): NAME.br and NAME.gz in `cache`, and `cache`.json, the size and
 * time of each source file the copies were made from.
 */
export const DOCS_COMPRESSED = [
  {
    source: RENDERER_DIR,
    files: ['standalone.js'],
    cache: join(COMPRESSED_DIR, `scalar-${RENDERER_VERSION}`),
  },
  {
    source: OWN_ASSETS_DIR,
    files: readdirSync(OWN_ASSETS_DIR).sort(),
    cache: join(COMPRESSED_DIR, 'docs-assets'),
  },
]

/** The folder of copies if its manifest names the source files as they are now, else none. */
export function freshCopies(entry: { source: string; files: string[]; cache: string }): string | undefined {
  try {
    const manifest = JSON.parse(readFileSync(`${entry.cache}.json`, 'utf8')) as Record<
      string,
      { size: number; mtimeMs: number }
    >
    const fresh =
      Object.keys(manifest).length === entry.files.length &&
      entry.files.every((file) => {
        const { size, mtimeMs } = statSync(join(entry.source, file))
        return manifest[file]?.size === size && manifest[file]?.mtimeMs === mtimeMs
      })
    return fresh ? entry.cache : undefined
  } catch {
    return undefined
  }
}
