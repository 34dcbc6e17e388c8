import { type Kysely, sql } from 'kysely'

/**
 * Personal data on request (docs/personal-data.md): an order remembers when
 * its customer was erased (and whether the personalization went too), and
 * each organization how long it keeps request bodies, receivers' answers and
 * the personal data of finished orders. The pruning of finished orders walks
 * production orders by the time they finished, from where it stopped.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table orders
      add column erased_at timestamptz,
      add column personalization_erased_at timestamptz`.execute(db)
  await sql`
    alter table organizations
      add column request_body_retention_days integer not null default 30
        check (request_body_retention_days between 0 and 30),
      add column webhook_answer_retention_days integer not null default 90
        check (webhook_answer_retention_days between 0 and 365),
      add column personal_data_retention_days integer
        check (personal_data_retention_days between 1 and 3650),
      add column personal_data_pruned_through timestamptz,
      add column webhook_answers_pruned_through timestamptz`.execute(db)
  await sql`
    create index production_orders_finished_idx on production_orders (updated_at, id)
      where status in ('completed', 'cancelled')`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index production_orders_finished_idx`.execute(db)
  await sql`
    alter table organizations
      drop column request_body_retention_days,
      drop column webhook_answer_retention_days,
      drop column personal_data_retention_days,
      drop column personal_data_pruned_through,
      drop column webhook_answers_pruned_through`.execute(db)
  await sql`alter table orders drop column erased_at, drop column personalization_erased_at`.execute(db)
}
