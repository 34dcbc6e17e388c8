// What src/ gets for `import { PGlite } from '@electric-sql/pglite'` under pglite-in-worker.ts.
export { WorkerPGlite as PGlite } from '../pglite-worker.ts'
