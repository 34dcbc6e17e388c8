import { type Kysely, sql } from 'kysely'

/**
 * OpenTelemetry traces (docs/operations.md, Traces): an event keeps the trace
 * context (a W3C traceparent) of the request that wrote it, and a
 * redelivery's or a replay's entry that of the request that asked for it, so
 * that the worker's attempts link back to both. Each attempt and each
 * request-log line keeps its trace id for the pages that show them, and an
 * organization may name its trace viewer (a URL with {trace_id}). All empty
 * while traces are off.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table events add column trace_context text`.execute(db)
  await sql`alter table webhook_deliveries add column trace_context text`.execute(db)
  await sql`alter table webhook_replays add column trace_context text`.execute(db)
  await sql`alter table webhook_attempts add column trace_id text`.execute(db)
  await sql`alter table api_requests add column trace_id text`.execute(db)
  await sql`alter table organizations add column trace_url_template text`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table organizations drop column trace_url_template`.execute(db)
  await sql`alter table api_requests drop column trace_id`.execute(db)
  await sql`alter table webhook_attempts drop column trace_id`.execute(db)
  await sql`alter table webhook_replays drop column trace_context`.execute(db)
  await sql`alter table webhook_deliveries drop column trace_context`.execute(db)
  await sql`alter table events drop column trace_context`.execute(db)
}
