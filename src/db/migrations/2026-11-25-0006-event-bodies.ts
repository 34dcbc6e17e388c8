import { type Kysely, sql } from 'kysely'

// Every event keeps the exact body its deliveries send: the envelope,
// serialized once when the event is written. Every attempt and every manual
// redelivery of an event thus carries the same bytes, and the worker sends
// stored text instead of rebuilding the envelope for each attempt. Events
// written before this migration get their envelope built here (PostgreSQL's
// JSON spacing; the same fields and values).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('events').addColumn('body', 'text').execute()
  await sql`
    update events set body = json_build_object(
      'id', id,
      'type', type,
      'created_at', to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'api_version', 'v1',
      'data', data)::text`.execute(db)
  await db.schema
    .alterTable('events')
    .alterColumn('body', (c) => c.setNotNull())
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('events').dropColumn('body').execute()
}
