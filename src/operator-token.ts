import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { randomBase62 } from './lib/secrets.ts'

export const OPERATOR_TOKEN_FILE = 'operator-token'

/**
 * OPERATOR_TOKEN when set; otherwise the token in DATA_DIR/operator-token,
 * generated (mode 0600) on first start. Several instances sharing DATA_DIR share it.
 */
export function resolveOperatorToken(
  configured: string | undefined,
  dataDir: string,
): { token: string; path?: string; generated: boolean } {
  if (configured) return { token: configured, generated: false }
  const path = join(dataDir, OPERATOR_TOKEN_FILE)
  try {
    const token = readFileSync(path, 'utf8').trim()
    if (token) return { token, path, generated: false }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
  mkdirSync(dataDir, { recursive: true })
  const token = `op_${randomBase62(43)}`
  try {
    writeFileSync(path, `${token}\n`, { mode: 0o600, flag: 'wx' })
  } catch (err) {
    // Another instance created it first: use theirs.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return resolveOperatorToken(undefined, dataDir)
    throw err
  }
  chmodSync(path, 0o600)
  return { token, path, generated: true }
}
