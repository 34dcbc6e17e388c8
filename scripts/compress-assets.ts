/**
 * Brotli (quality 11) and gzip (level 9) copies of static files, made once at
 * build time and served by @fastify/static's `preCompressed` option, which
 * looks for NAME.br and NAME.gz beside NAME. A copy is written only when it is
 * smaller than the file.
 *
 * - `node scripts/compress-assets.ts DIR`: every compressible file under DIR,
 *   copies beside the files (the web build: `npm run build -w web`).
 * - `node scripts/compress-assets.ts`: the files of /docs (the renderer in
 *   node_modules, the docs' own assets) into the service's cache directory,
 *   with a manifest of what was compressed (`npm ci` runs it as `prepare`;
 *   the service serves the copies only while the manifest matches).
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { promisify } from 'node:util'
import { brotliCompress, constants, gzip } from 'node:zlib'

const brotli = promisify(brotliCompress)
const gzipped = promisify(gzip)

/** Text and uncompressed font formats; images, woff/woff2 and archives are compressed already. */
export const COMPRESSIBLE = /\.(?:js|mjs|css|svg|html|json|txt|xml|webmanifest|wasm|ttf|otf|eot|ico)$/

export interface CompressedFile {
  /** The file's path relative to its folder. */
  file: string
  size: number
  mtimeMs: number
  /** Bytes of each copy written; absent when the copy would not be smaller. */
  br?: number
  gz?: number
}

/** The source files a folder of copies was made from, to tell whether the copies are still theirs. */
export type Manifest = Record<string, { size: number; mtimeMs: number }>

function write(path: string, bytes: Buffer) {
  mkdirSync(dirname(path), { recursive: true })
  const partial = `${path}.${process.pid}.partial`
  writeFileSync(partial, bytes)
  renameSync(partial, path)
}

/** NAME.br and NAME.gz of each file of `from` into `into` (the same folder by default). */
export async function compressFiles(from: string, files: string[], into = from): Promise<CompressedFile[]> {
  return Promise.all(
    files.map(async (file) => {
      const source = join(from, file)
      const { size, mtimeMs } = statSync(source)
      const bytes = readFileSync(source)
      const font = /\.(?:ttf|otf|eot)$/.test(file)
      const [br, gz] = await Promise.all([
        brotli(bytes, {
          params: {
            [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
            [constants.BROTLI_PARAM_MODE]: font ? constants.BROTLI_MODE_FONT : constants.BROTLI_MODE_TEXT,
            [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
          },
        }),
        gzipped(bytes, { level: constants.Z_BEST_COMPRESSION }),
      ])
      const result: CompressedFile = { file, size, mtimeMs }
      for (const [extension, copy] of [
        ['br', br],
        ['gz', gz],
      ] as const) {
        const target = join(into, `${file}.${extension}`)
        if (copy.length < bytes.length) {
          write(target, copy)
          result[extension] = copy.length
        } else {
          rmSync(target, { force: true })
        }
      }
      return result
    }),
  )
}

/** Every compressible file under `dir`, relative to it. */
export function compressibleFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => COMPRESSIBLE.test(file) && statSync(join(dir, file)).isFile())
    .sort()
}

/**
 * Copies of `files` of `from` in `into`, and beside that folder INTO.json, the
 * manifest the service checks them by (outside it: the folder holds nothing
 * but copies).
 */
export async function compressInto(from: string, files: string[], into: string): Promise<CompressedFile[]> {
  rmSync(`${into}.json`, { force: true })
  rmSync(into, { recursive: true, force: true })
  const compressed = await compressFiles(from, files, into)
  const manifest: Manifest = Object.fromEntries(
    compressed.map(({ file, size, mtimeMs }) => [file, { size, mtimeMs }]),
  )
  write(`${into}.json`, Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`))
  return compressed
}

function report(label: string, compressed: CompressedFile[]) {
  const sum = (pick: (c: CompressedFile) => number) => compressed.reduce((n, c) => n + pick(c), 0)
  const kB = (n: number) => `${(n / 1000).toFixed(1)} kB`
  console.log(
    `${label}: ${compressed.length} files, ${kB(sum((c) => c.size))}; brotli ${kB(sum((c) => c.br ?? c.size))}, gzip ${kB(sum((c) => c.gz ?? c.size))}`,
  )
}

if (import.meta.main) {
  const dir = process.argv[2]
  if (dir) {
    report(relative(process.cwd(), dir) || dir, await compressFiles(dir, compressibleFiles(dir)))
  } else {
    const { DOCS_COMPRESSED } = await import('../src/modules/docs/compressed.ts')
    for (const { source, files, cache } of DOCS_COMPRESSED) {
      report(relative(process.cwd(), cache), await compressInto(source, files, cache))
    }
  }
}
