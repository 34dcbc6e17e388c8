import { type Database, openDatabase } from '../../src/db/database.ts'
import {
  createTestApp,
  createTestDatabase,
  TEST_DATABASE_URL,
  type TestApp,
  type TestDatabase,
} from './app.ts'
import { startTcpProxy, type TcpProxy } from './tcp-proxy.ts'

export interface AppBehindProxy {
  testDb: TestDatabase
  proxy: TcpProxy
  /** The app's pool, through the proxy. */
  db: Database
  t: TestApp
  /** Closes the proxy, the app, its pool and the test database, in this order. */
  close(): Promise<void>
}

/**
 * An app on a test database of its own whose pool (4 connections, with these
 * connect and statement timeouts) reaches PostgreSQL through a TCP proxy that
 * stalls, resets and refuses when told to. PostgreSQL only (TEST_DATABASE_URL).
 */
export async function startAppBehindProxy(
  timeouts: { connectMs: number; statementMs: number },
  appOptions: Omit<NonNullable<Parameters<typeof createTestApp>[0]>, 'testDb' | 'db'> = {},
): Promise<AppBehindProxy> {
  const testDb = await createTestDatabase()
  const proxy = await startTcpProxy(TEST_DATABASE_URL!)
  const db = (await openDatabase({ url: proxy.url(testDb.url!), poolSize: 4, timeouts })).db
  const t = await createTestApp({ ...appOptions, testDb, db })
  return {
    testDb,
    proxy,
    db,
    t,
    async close() {
      await proxy.close()
      await t.close()
      await db.destroy()
      await testDb.close()
    },
  }
}
