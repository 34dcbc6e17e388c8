import { PRODUCTION_STATUS_WORDS } from '../../../components/order-statuses.ts'
import { formatNumber } from '../../../lib/format.ts'
import type { BatchActed, BatchAction } from '../console/api/batches.ts'
import type { Scanned } from '../console/api/stations.ts'

/**
 * What a station page says after each scan and action, in large text: what
 * the scan opened or completed, or what it did not match, and what the last
 * action at the station did.
 */
export interface Said {
  /** 'done' for a change made, 'opened' for a sheet opened, 'refused' for a scan or action not done. */
  tone: 'opened' | 'done' | 'refused'
  headline: string
  detail?: string
}

const plural = (n: number, one: string, many: string) => `${formatNumber(n)} ${n === 1 ? one : many}`
const BATCH_WORDS: Record<string, string> = {
  open: 'open: orders join it until it starts',
  in_progress: 'in production',
  completed: 'completed',
  failed: 'failed',
}

/** Who heard of a change: the events it recorded, sent to the organization's live webhooks. */
export function eventsWords(events: readonly { type: string }[]): string {
  if (events.length === 0) return 'No event was sent (a shop order, or made by a partner).'
  const types = [...new Set(events.map((e) => e.type))].join(', ')
  return `Sent ${types} to the organization's live webhooks.`
}

/** A successful scan: the order or batch opened, or the item whose job it completed. */
export function scanWords(scanned: Scanned): Said {
  const po = scanned.production_order
  if (scanned.kind === 'batch' && scanned.batch) {
    const { batch } = scanned.batch
    return {
      tone: 'opened',
      headline: `Opened batch ${batch.name} (${plural(batch.orders, 'order', 'orders')})`,
      detail: `The batch is ${BATCH_WORDS[batch.status] ?? batch.status}.`,
    }
  }
  if (scanned.kind === 'job' && po && scanned.production_job) {
    const job = scanned.production_job
    const item = po.order.items.find((i) => i.id === job.order_item_id)
    const what = item ? `${formatNumber(item.quantity)} × ${item.name}` : 'an item'
    return {
      tone: 'done',
      headline: `Completed item ${what} of order ${po.order.external_order_id}`,
      detail: eventsWords(scanned.events),
    }
  }
  if (po) {
    const items = po.order.items
    const done = items.filter((i) => i.production_job?.status === 'completed').length
    return {
      tone: 'opened',
      headline: `Opened order ${po.order.external_order_id} (${po.organization.name})`,
      detail: `${PRODUCTION_STATUS_WORDS[po.production_order.status] ?? po.production_order.status}; ${formatNumber(done)} of ${plural(items.length, 'item', 'items')} completed.`,
    }
  }
  return { tone: 'opened', headline: 'The scan opened nothing to show' }
}

/** The code as read, for the message (a scanner's misread can be long). */
const shown = (code: string) => {
  const text = code.trim()
  return text.length > 60 ? `${text.slice(0, 60)}…` : text
}

/** A refused scan in words: a code from elsewhere, naming nothing, an item already done, or another refusal. */
export function scanRefusalWords(error: unknown, code: string): Said {
  const { code: reason, message } = (error ?? {}) as { code?: unknown; message?: unknown }
  const said = typeof message === 'string' ? message : String(error)
  const read = `Read: “${shown(code)}”.`
  if (reason === 'validation_failed') {
    return {
      tone: 'refused',
      headline: 'This code is not from a job sheet or batch sheet',
      detail: `${read} Scan the large QR code of a job sheet or batch sheet, or the small one on an item's line.`,
    }
  }
  if (reason === 'not_found') {
    if (said.startsWith('No station'))
      return {
        tone: 'refused',
        headline: 'This station was removed',
        detail: 'Choose a station on the Stations page.',
      }
    return {
      tone: 'refused',
      headline: 'No production order, batch or item has this code',
      detail: `${read} The sheet may be of a deleted batch, or from another service.`,
    }
  }
  if (reason === 'production_conflict') {
    if (/already completed/i.test(said))
      return { tone: 'refused', headline: 'This item was already completed', detail: 'Nothing was done.' }
    return { tone: 'refused', headline: 'This item cannot be completed now', detail: said }
  }
  if (reason === 'network')
    return { tone: 'refused', headline: 'The scan did not reach the service', detail: `${said} Scan again.` }
  return { tone: 'refused', headline: 'The scan was not done', detail: said }
}

/** An action on a production order at the station: its label ("Start production: EXT-1") and who heard. */
export const actionWords = (outcome: { label: string; events: readonly { type: string }[] }): Said => ({
  tone: 'done',
  headline: outcome.label,
  detail: eventsWords(outcome.events),
})

/** An action at the station the service refused (its message says why). */
export function actionRefusedWords(error: unknown): Said {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown }
  const said = typeof message === 'string' ? message : String(error)
  if (code === 'production_conflict')
    return {
      tone: 'refused',
      headline: 'Not done: it changed meanwhile',
      detail: `${said} It shows as it is now.`,
    }
  if (code === 'network')
    return { tone: 'refused', headline: 'Not done: the service cannot be reached', detail: said }
  return { tone: 'refused', headline: 'Not done', detail: said }
}

const DONE: Record<BatchAction, string> = { start: 'Started', complete: 'Completed', fail: 'Failed' }

/** A batch action at the station: how many orders moved, were already so, or were left as they are. */
export function batchActedWords(name: string, action: BatchAction, acted: BatchActed): Said {
  const count = (o: string) => acted.results.filter((r) => r.outcome === o).length
  const parts = [
    `${plural(count('changed'), 'order', 'orders')} moved`,
    count('unchanged') > 0 ? `${formatNumber(count('unchanged'))} already so` : '',
    count('skipped') > 0
      ? `${formatNumber(count('skipped'))} left as ${count('skipped') === 1 ? 'it is' : 'they are'}`
      : '',
  ].filter(Boolean)
  return {
    tone: 'done',
    headline: `${DONE[action]} batch ${name}: ${parts.join(', ')}`,
    detail:
      acted.events.length === 0
        ? 'No event was sent.'
        : `${plural(acted.events.length, 'event', 'events')} sent to the organizations' live webhooks.`,
  }
}

/** The station remembered in this browser (localStorage's text), or null for none or anything else. */
export function readSavedStation(text: string | null): { id: string; name: string } | null {
  try {
    const saved = JSON.parse(text ?? 'null') as unknown
    if (saved && typeof saved === 'object') {
      const { id, name } = saved as Record<string, unknown>
      if (typeof id === 'string' && typeof name === 'string' && id && name) return { id, name }
    }
  } catch {}
  return null
}
