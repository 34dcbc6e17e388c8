/**
 * The service's entry point. Traces, when configured (docs/operations.md),
 * start before the rest is loaded: the PostgreSQL driver is instrumented as
 * it is imported. Without them nothing of OpenTelemetry's SDK is loaded.
 */
import { configOrExit } from './config.ts'

const config = configOrExit()
const telemetry = config.tracing
  ? await (await import('./telemetry/start.ts')).startTracing(config.tracing)
  : undefined
const { serve } = await import('./serve.ts')
await serve(config, telemetry)
