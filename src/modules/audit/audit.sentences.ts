import type { PrintSpecs } from '../../db/schema.ts'
import { describePrintSpec } from '../products/print-spec.ts'
import type { AuditAction } from './audit.actions.ts'

/** What the sentence needs of an entry (both logs' views and the CSV have these). */
export interface SentenceEntry {
  actor: string
  action: string
  subject: string
  details: Record<string, unknown>
}

/** Long ids read as their first characters; the page offers the whole id to copy. */
export function shortId(id: string): string {
  return id.length > 13 ? `${id.slice(0, 8)}\u2026` : id
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined)
const list = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x) => typeof x === 'string') : [])
const quoted = (v: unknown) => (str(v) ? `\u2018${str(v)}\u2019` : '')
const orderName = (d: Record<string, unknown>, subject: string) =>
  `order ${str(d.external_order_id) ?? shortId(str(d.order_id) ?? subject)}`
const article = (word: string) => (/^[aeiou]/i.test(word) ? 'an' : 'a')
/** `n orders` from a count in the details. */
const count = (v: unknown, noun: string) => {
  const n = typeof v === 'number' ? v : 0
  return `${n} ${noun}${n === 1 ? '' : 's'}`
}

/** Where on the floor a production change was made: its batch and station, when it had them. */
const floor = (d: Record<string, unknown>) =>
  `${str(d.batch_name) ? ` with the batch ${quoted(d.batch_name)}` : ''}${str(d.station) ? ` at the station ${quoted(d.station)}` : ''}`

const show = (v: unknown) => (v === null || v === undefined || v === '' ? '(none)' : String(v))
/** A production status as people say it: in_progress is "in production". */
const PRODUCTION_STATUS_WORDS: Record<string, string> = {
  pending: 'pending',
  in_progress: 'in production',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
}
const status = (v: unknown) => PRODUCTION_STATUS_WORDS[String(v)] ?? show(v)

type Item = { quantity?: unknown; personalization?: unknown; files?: unknown }

/** "quantity of item 1 2 → 5; customer email a@x → b@x": what order.changed changed. */
function orderChanges(d: Record<string, unknown>): string {
  const changed = list(d.changed)
  const before = (d.before ?? {}) as { customer?: Record<string, unknown>; items?: Item[] }
  const after = (d.after ?? {}) as { customer?: Record<string, unknown>; items?: Item[] }
  // Items appear in `before.items` in the order their first change appears in `changed`.
  const itemOrder: number[] = []
  for (const path of changed) {
    const n = /^items\[(\d+)\]/.exec(path)?.[1]
    if (n !== undefined && !itemOrder.includes(Number(n))) itemOrder.push(Number(n))
  }
  const parts = changed.map((path) => {
    const customer = /^customer\.(\w+)$/.exec(path)
    if (customer) {
      const f = customer[1]!
      return `customer ${f} ${show(before.customer?.[f])} \u2192 ${show(after.customer?.[f])}`
    }
    const item = /^items\[(\d+)\]\.(\w+)$/.exec(path)
    if (item) {
      const n = Number(item[1])
      const field = item[2]! as keyof Item
      const k = itemOrder.indexOf(n)
      if (field === 'quantity') {
        return `quantity of item ${n + 1} ${show(before.items?.[k]?.quantity)} \u2192 ${show(after.items?.[k]?.quantity)}`
      }
      if (field === 'personalization') return `personalization of item ${n + 1}`
      return `files of item ${n + 1}`
    }
    return path
  })
  return parts.length > 0 ? parts.join('; ') : 'nothing'
}

function ruleChanges(d: Record<string, unknown>): string {
  const before = (d.before ?? {}) as Record<string, unknown>
  const after = (d.after ?? {}) as Record<string, unknown>
  const parts: string[] = []
  if (before.name !== after.name) parts.push(`renamed ${quoted(before.name)} to ${quoted(after.name)}`)
  if (before.enabled !== after.enabled) parts.push(after.enabled ? 'turned it on' : 'turned it off')
  if (JSON.stringify(before.conditions) !== JSON.stringify(after.conditions))
    parts.push('changed its conditions')
  if (JSON.stringify(before.actions) !== JSON.stringify(after.actions)) parts.push('changed its actions')
  return parts.length > 0 ? `: ${parts.join(', ')}` : ''
}

const sessions = (n: unknown) => (typeof n === 'number' ? ` and ended ${n} session${n === 1 ? '' : 's'}` : '')
const resetIssued = (a: string, s: string, d: Record<string, unknown>) =>
  `${a} issued a password reset link for ${s}${d.replaced === true ? ' (the unused earlier link no longer works)' : ''}`
const resetUsed = (a: string, d: Record<string, unknown>) =>
  `${a} set a new password with a reset link${sessions(d.sessions_ended)}`

/** "… set the print specification of product POSTER-A2: 420 × 594 mm, 150 dpi; front 210 × 297 mm, 300 dpi". */
function printSpecSentence(a: string, sku: string, specs: unknown): string {
  const value = specs as PrintSpecs | null | undefined
  if (!value) return `${a} removed the print specification of product ${sku}`
  const parts = [
    ...(value.default ? [describePrintSpec(value.default)] : []),
    ...Object.entries(value.roles ?? {}).map(([role, spec]) => `${role} ${describePrintSpec(spec)}`),
  ]
  return `${a} set the print specification of product ${sku}${parts.length > 0 ? `: ${parts.join('; ')}` : ''}`
}

/** What a retention change changed, in days ("request bodies 30 → 7 days"). */
function retentionSet(a: string, d: Record<string, unknown>): string {
  const before = (d.before ?? {}) as Record<string, unknown>
  const after = (d.after ?? {}) as Record<string, unknown>
  const days = (v: unknown) => (v === null || v === undefined ? 'never' : `${v} days`)
  const names: [string, string][] = [
    ['request_body_retention_days', 'request bodies'],
    ['webhook_answer_retention_days', 'webhook answers'],
    ['personal_data_retention_days', 'personal data of finished orders'],
  ]
  const changes = names
    .filter(([key]) => before[key] !== after[key])
    .map(([key, name]) => `${name} ${days(before[key])} \u2192 ${days(after[key])}`)
  return `${a} set how long data is kept${changes.length > 0 ? `: ${changes.join(', ')}` : ''}`
}

type Sentence = (actor: string, subject: string, d: Record<string, unknown>) => string

/**
 * One sentence per action ("ada@shop.test created live key svc_live_ab12… with
 * orders:write"), from the details each service records. A Record over every
 * action, so a new action does not compile without its sentence.
 */
const SENTENCES: Record<AuditAction, Sentence> = {
  'member.signed_in': (a) => `${a} signed in`,
  'member.invited': (a, s, d) => `${a} invited ${s} as ${str(d.role) ?? 'member'}`,
  'member.joined': (a, _s, d) => `${a} joined as ${str(d.role) ?? 'member'}`,
  'member.role_changed': (a, s, d) => `${a} changed ${s}\u2019s role from ${show(d.from)} to ${show(d.to)}`,
  'member.removed': (a, s, d) => `${a} removed ${s}${str(d.role) ? ` (${d.role})` : ''}`,
  'member.invitation_revoked': (a, s) => `${a} revoked the invitation of ${s}`,
  'member.password_changed': (a, _s, d) =>
    `${a} changed their password${typeof d.sessions_ended === 'number' ? ` and ended ${d.sessions_ended} other session${d.sessions_ended === 1 ? '' : 's'}` : ''}`,
  'member.password_reset_issued': (a, s, d) => resetIssued(a, s, d),
  'member.password_reset': (a, _s, d) => resetUsed(a, d),
  'operator.invited': (a, s) => `${a} invited ${s} as operator`,
  'operator.invitation_revoked': (a, s) => `${a} revoked the operator invitation of ${s}`,
  'operator.removed': (a, s) => `${a} removed operator ${s}`,
  'operator.joined': (a) => `${a} joined as operator`,
  'operator.signed_in': (a) => `${a} signed in`,
  'operator.password_changed': (a) => `${a} changed their password`,
  'operator.password_reset_issued': (a, s, d) => resetIssued(a, s, d),
  'operator.password_reset': (a, _s, d) => resetUsed(a, d),
  'organization.created': (a, s) => `${a} created the organization ${quoted(s)}`,
  'organization.retention_set': (a, _s, d) => retentionSet(a, d),
  'personal_data.erased': (a, _s, d) => {
    const n = Number(d.orders ?? 0)
    const by = list(d.searched_by)
    return `${a} erased a customer\u2019s personal data from ${n} order${n === 1 ? '' : 's'}${by.length > 0 ? ` (found by ${by.join(', ')})` : ''}${d.personalization_of === 'none' ? ', personalization kept' : ''}`
  },
  'personal_data.exported': (a, _s, d) => {
    const n = Number(d.orders ?? 0)
    const by = list(d.searched_by)
    return `${a} exported a customer\u2019s personal data: ${n} order${n === 1 ? '' : 's'}${by.length > 0 ? ` (found by ${by.join(', ')})` : ''}`
  },
  'api_key.created': (a, s, d) => {
    const scopes = list(d.scopes)
    const env = str(d.environment)
    return `${a} created ${env ? `${env} ` : ''}key ${s}\u2026${scopes.length > 0 ? ` with ${scopes.join(', ')}` : ''}`
  },
  'api_key.revoked': (a, s, d) =>
    `${a} revoked ${str(d.environment) ? `${d.environment} ` : ''}key ${s}\u2026`,
  'product.created': (a, s, d) => `${a} created product ${s}${str(d.name) ? ` (${d.name})` : ''}`,
  'product.print_spec_set': (a, s, d) => printSpecSentence(a, s, d.print_spec),
  'product.lead_time_set': (a, s, d) =>
    typeof d.lead_time_days === 'number'
      ? `${a} set the lead time of product ${s} to ${d.lead_time_days} working day${d.lead_time_days === 1 ? '' : 's'}`
      : `${a} removed the lead time of product ${s} (the platform's default applies)`,
  'shop_order.created': (a, s, d) => `${a} created ${orderName(d, s)} in the dashboard`,
  'production.status_set': (a, s, d) =>
    `${a} set the production status of ${orderName(d, s)} from ${status(d.from)} to ${status(d.to)}${str(d.reason) ? ` (${d.reason})` : ''}${floor(d)}`,
  'production.partner_set': (a, s, d) =>
    `${a} marked ${orderName(d, s)} as ${d.produced_by_partner ? 'produced by a partner' : 'produced in house'}${floor(d)}`,
  'production.job_completed': (a, s, d) =>
    `${a} completed the ${str(d.sku) ?? ''} job of ${orderName(d, s)}${floor(d)}`.replace(
      'the  job',
      'a job',
    ),
  'production.calendar_set': (a, _s, d) => {
    const after = (d.after ?? {}) as Record<string, unknown>
    const n = typeof d.redated_orders === 'number' ? d.redated_orders : 0
    return `${a} changed the production calendar (${show(after.time_zone)}, default lead time ${show(after.default_lead_time_days)} working days, ${list(after.closed_days).length} closed days ahead): ${n} open order${n === 1 ? '' : 's'} dated again`
  },
  'production.batch_created': (a, _s, d) =>
    `${a} made the batch ${quoted(d.name)} of ${count(d.orders, 'order')}`,
  'production.batch_orders_added': (a, _s, d) =>
    `${a} added ${count(d.orders, 'order')} to the batch ${quoted(d.name)}`,
  'production.batch_order_removed': (a, _s, d) =>
    `${a} took production order ${str(d.production_order_id) ?? ''} out of the batch ${quoted(d.name)}`,
  'production.batch_deleted': (a, _s, d) =>
    `${a} deleted the batch ${quoted(d.name)} (${count(d.orders, 'order')} freed)`,
  'production.batch_started': (a, _s, d) =>
    `${a} started the batch ${quoted(d.name)}: ${count(d.orders, 'order')} started${floor(d)}`,
  'production.batch_completed': (a, _s, d) =>
    `${a} completed the batch ${quoted(d.name)}: ${count(d.orders, 'order')} completed${floor(d)}`,
  'production.batch_failed': (a, _s, d) =>
    `${a} marked the batch ${quoted(d.name)} failed: ${count(d.orders, 'order')} failed${str(d.reason) ? ` (${d.reason})` : ''}${floor(d)}`,
  'production.station_created': (a, _s, d) => `${a} added the station ${quoted(d.name)}`,
  'production.station_renamed': (a, _s, d) =>
    `${a} renamed the station ${quoted(d.from)} to ${quoted(d.name)}`,
  'production.station_archived': (a, _s, d) => `${a} removed the station ${quoted(d.name)}`,
  'order.cancelled': (a, s, d) => `${a} cancelled ${orderName(d, s)}`,
  'order.changed': (a, s, d) => `${a} changed ${orderName(d, s)}: ${orderChanges(d)}`,
  'order.released': (a, s, d) => {
    const rule = (d.rule ?? {}) as Record<string, unknown>
    const name = str(rule.rule_name) ?? str(rule.name)
    return `${a} released ${orderName(d, s)} from its hold${name ? ` by rule ${quoted(name)}` : ''}`
  },
  'automation_rule.created': (a, _s, d) => `${a} created automation rule ${quoted(d.name)}`,
  'automation_rule.updated': (a, _s, d) =>
    `${a} changed automation rule ${quoted((d.after as Record<string, unknown> | undefined)?.name)}${ruleChanges(d)}`,
  'automation_rule.deleted': (a, _s, d) => `${a} deleted automation rule ${quoted(d.name)}`,
  'automation_rule.reordered': (a, _s, d) => {
    const after = Array.isArray(d.after) ? (d.after as { name?: unknown }[]) : []
    return `${a} reordered the automation rules${after.length > 0 ? `: ${after.map((r) => quoted(r.name)).join(', ')}` : ''}`
  },
  'webhook_endpoint.created': (a, s, d) => {
    const events = list(d.enabled_events)
    return `${a} added ${str(d.environment) ? `${d.environment} ` : ''}webhook endpoint ${s}${events.length > 0 ? ` for ${events.join(', ')}` : ''}`
  },
  'webhook_endpoint.updated': (a, s, d) => {
    const changes = (d.changes ?? {}) as Record<string, unknown>
    const parts = [
      ...('description' in changes ? [`description to ${quoted(changes.description) || '(none)'}`] : []),
      ...('enabled_events' in changes ? [`events to ${list(changes.enabled_events).join(', ')}`] : []),
    ]
    return `${a} changed webhook endpoint ${s}${parts.length > 0 ? `: ${parts.join(', ')}` : ''}`
  },
  'webhook_endpoint.deleted': (a, s) => `${a} deleted webhook endpoint ${s}`,
  'webhook_endpoint.secret_rotated': (a, s, d) =>
    `${a} rotated the signing secret of ${s}${typeof d.grace_period_seconds === 'number' && d.grace_period_seconds > 0 ? ` (the old one valid ${d.grace_period_seconds} s longer)` : ''}`,
  'webhook_endpoint.replayed': (a, s, d) => {
    const types = list(d.event_types)
    return `${a} replayed ${types.length > 0 ? types.join(', ') : 'all'} events since ${show(d.since)} to ${s}`
  },
  'webhook_endpoint.sample_sent': (a, s, d) =>
    `${a} sent a sample ${str(d.event_type) ? `${d.event_type} ` : ''}event to ${s}`,
  'webhook_endpoint.retried_now': (a, s) =>
    `${a} retried failing webhook endpoint ${s} now (one probe at once)`,
  'webhook_delivery.redelivered': (a, s, d) =>
    `${a} redelivered ${str(d.event_type) ? `${article(String(d.event_type))} ${d.event_type}` : 'an'} event to ${s}`,
}

/** The entry as a sentence; an action this version does not know still reads, by its name. */
export function auditSentence(entry: SentenceEntry): string {
  const sentence = SENTENCES[entry.action as AuditAction]
  if (!sentence) return `${entry.actor}: ${entry.action} ${entry.subject}`.trim()
  return sentence(entry.actor, entry.subject, entry.details ?? {})
}

export const SENTENCE_ACTIONS = Object.keys(SENTENCES)
