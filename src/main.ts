import closeWithGrace from 'close-with-grace'
import { buildApp } from './app.ts'
import { ConfigError, loadConfig } from './config.ts'
import { migrateToLatest, openDatabase } from './db/database.ts'
import { createMemoryRateLimiter, createRedisRateLimiter } from './http/rate-limit.ts'
import { systemClock } from './lib/clock.ts'
import { resolveOperatorToken } from './operator-token.ts'

async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>
  try {
    config = loadConfig()
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`configuration error: ${err.message}`)
      process.exit(2)
    }
    throw err
  }

  const logger = {
    level: config.logLevel,
    // Belt and braces: nothing logs these today, and nothing ever should.
    redact: ['req.headers.authorization', 'headers.authorization', 'key', 'token', 'secret'],
  }
  const { db, dialect } = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir })
  await migrateToLatest(db)

  const operator = resolveOperatorToken(config.operatorToken, config.dataDir)
  const rateLimiter = config.redisUrl
    ? await createRedisRateLimiter(config.redisUrl, config.rateLimitPerMinute)
    : createMemoryRateLimiter(config.rateLimitPerMinute)

  const app = await buildApp({
    config,
    db,
    clock: systemClock,
    rateLimiter,
    operatorToken: operator.token,
    logger,
  })
  app.server.requestTimeout = 60_000
  app.server.headersTimeout = 30_000
  app.server.keepAliveTimeout = 72_000

  closeWithGrace({ delay: 20_000 }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error')
    else app.log.info({ signal }, 'shutting down: draining in-flight requests')
    // Stops accepting connections and waits for in-flight requests to finish.
    await app.close()
    await rateLimiter.close()
    await db.destroy()
    app.log.info('stopped')
  })

  await app.listen({ port: config.port, host: config.host })
  app.log.info(
    {
      database: dialect === 'postgres' ? 'postgresql' : `embedded (${config.dataDir}/pgdata)`,
      rate_limit: config.redisUrl ? 'redis' : 'in-process',
      public_base_url: config.publicBaseUrl,
    },
    'service ready',
  )
  if (operator.path) {
    app.log.info({ path: operator.path }, 'operator token file (use it as Bearer token for /admin/v1)')
  }
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
