/**
 * npm run admin -- <command>: the command line of the operator API (/admin/v1)
 * of a running service (scripts/admin/cli.ts; every command: docs/cli.md).
 */
import { enableCompileCache } from 'node:module'

// Every command is a new process: the modules it compiles are kept on disk for the next one.
enableCompileCache()
const { runAdmin } = await import('./admin/cli.ts')
process.exitCode = await runAdmin(process.argv.slice(2), {
  env: process.env,
  out: (text) => console.log(text),
  err: (text) => console.error(text),
})
