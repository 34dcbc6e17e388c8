import { type Kysely, sql } from 'kysely'

/**
 * The request log (docs/decisions/2026-11-29-request-log.md): a line per /v1
 * request made with an API key, written after the answer in batches by each
 * instance, pruned in the background to 30 days and a cap per organization
 * and environment. Bodies are kept for answers of 400 and above and for
 * successful writes (the first 16 KB); never a key, a signature or a secret.
 * One index serves the page (newest first, by organization and environment,
 * time filters included) and the pruning; one finds a line by X-Request-Id,
 * one the requests of an order (only POST /v1/orders lines have one).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table api_requests (
      id uuid primary key,
      organization_id uuid not null,
      environment text not null,
      key_id uuid not null,
      key_prefix text not null,
      created_at timestamptz not null,
      method text not null,
      path text not null,
      status smallint not null,
      error_code text,
      duration_ms real not null,
      request_id text not null,
      order_id text,
      content_type text,
      request_body text,
      request_body_bytes integer,
      response_body text
    )`.execute(db)
  await sql`
    create index api_requests_page_idx on api_requests (organization_id, environment, created_at desc, id desc)`.execute(
    db,
  )
  await sql`create index api_requests_request_id_idx on api_requests (organization_id, request_id)`.execute(
    db,
  )
  await sql`
    create index api_requests_order_idx on api_requests (organization_id, order_id)
    where order_id is not null`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table api_requests`.execute(db)
}
