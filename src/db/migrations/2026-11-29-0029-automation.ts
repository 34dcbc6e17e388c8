import { type Kysely, sql } from 'kysely'

/**
 * Automation rules (docs/decisions/2026-11-29-automation-rules.md): an
 * organization's rules in their order, and what they did to each live order.
 * - automation_rules: position orders them (unique per organization,
 *   checked at commit, so a reorder can swap positions in one statement).
 * - automation_versions: one row per organization whose rules ever
 *   changed, its version moving with every change (0 without a row): the
 *   order's statement checks the version its rules were read at, so an order
 *   is never written with rules older than a change already committed.
 * - orders.tags and orders.automation (the rules that matched, with their
 *   actions); production_orders.priority and the hold (a flag beside the
 *   status, with the rule that set it). Defaults that need no rewrite.
 * - Partial indexes for the lists' filters: only tagged orders, only held and
 *   rush production orders are in them, so an order no rule touched adds no
 *   index entry.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table automation_rules (
      id uuid primary key,
      organization_id uuid not null references organizations (id) on delete cascade,
      position integer not null,
      name text not null,
      enabled boolean not null,
      conditions jsonb not null,
      actions jsonb not null,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      constraint automation_rules_position_key unique (organization_id, position) deferrable initially deferred
    )`.execute(db)
  await sql`
    create table automation_versions (
      organization_id uuid primary key references organizations (id) on delete cascade,
      version bigint not null
    )`.execute(db)
  await sql`alter table orders add column tags text[] not null default '{}',
    add column automation jsonb`.execute(db)
  await sql`alter table production_orders add column priority text not null default 'normal',
    add column held_at timestamptz, add column hold jsonb`.execute(db)
  await sql`create index orders_tags_idx on orders using gin (tags) where tags <> '{}'`.execute(db)
  await sql`create index production_orders_held_idx on production_orders (held_at, id) where held_at is not null`.execute(
    db,
  )
  await sql`create index production_orders_rush_idx on production_orders (created_at, id) where priority = 'rush'`.execute(
    db,
  )
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index production_orders_rush_idx`.execute(db)
  await sql`drop index production_orders_held_idx`.execute(db)
  await sql`drop index orders_tags_idx`.execute(db)
  await sql`alter table production_orders drop column priority, drop column held_at, drop column hold`.execute(
    db,
  )
  await sql`alter table orders drop column tags, drop column automation`.execute(db)
  await sql`drop table automation_versions`.execute(db)
  await sql`drop table automation_rules`.execute(db)
}
