import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ScanBody, StationNameBody } from '../../src/modules/production/stations/stations.console.schemas.ts'
import type { BatchActed } from '../../web/src/features/production/console/api/batches.ts'
import type { Scanned } from '../../web/src/features/production/console/api/stations.ts'
import {
  actionRefusedWords,
  actionWords,
  batchActedWords,
  readSavedStation,
  scanRefusalWords,
  scanWords,
} from '../../web/src/features/production/lib/station-words.ts'
import { ApiError } from '../../web/src/lib/api.ts'
import { STATION_LIMITS } from '../../web/src/lib/limits.ts'

/** What a station page says after a scan or an action (production/lib/station-words.ts). */
const id = '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b'
const item = (n: number, quantity: number, name: string, job: string | null) => ({
  id: `item-${n}`,
  quantity,
  name,
  production_job: { id: `job-${n}`, status: job },
})
const order = (items: ReturnType<typeof item>[]) => ({
  production_order: { id, status: 'in_progress' },
  order: { external_order_id: 'EXT-1', items },
  organization: { name: 'Acme' },
})
const scanned = (s: Partial<Record<keyof Scanned, unknown>>) =>
  ({ production_order: null, batch: null, production_job: null, events: [], ...s }) as unknown as Scanned

test('a scanned job sheet opens its order, named with its organization and how far it is', () => {
  const said = scanWords(
    scanned({
      kind: 'production_order',
      production_order: order([item(1, 2, 'Mug', 'completed'), item(2, 1, 'Cap', 'pending')]),
    }),
  )
  assert.deepEqual(said, {
    tone: 'opened',
    headline: 'Opened order EXT-1 (Acme)',
    detail: 'In production; 1 of 2 items completed.',
  })
})

test("a scanned item's line says which item of which order it completed, and who was told", () => {
  const po = order([item(1, 1, 'Cap', 'pending'), item(2, 2, 'Mug', 'completed')])
  const job = { id: 'job-2', production_order_id: id, order_item_id: 'item-2', status: 'completed' }
  const told = scanWords(
    scanned({
      kind: 'job',
      production_order: po,
      production_job: job,
      events: [{ type: 'order_item.completed' }],
    }),
  )
  assert.equal(told.tone, 'done')
  assert.equal(told.headline, 'Completed item 2 × Mug of order EXT-1')
  assert.equal(told.detail, "Sent order_item.completed to the organization's live webhooks.")
  const quiet = scanWords(scanned({ kind: 'job', production_order: po, production_job: job }))
  assert.equal(quiet.detail, 'No event was sent (a shop order, or made by a partner).')
})

test('a scanned batch sheet opens the batch with its orders', () => {
  const batch = { batch: { id, name: 'A2 posters', status: 'open', orders: 3 } }
  assert.deepEqual(scanWords(scanned({ kind: 'batch', batch })), {
    tone: 'opened',
    headline: 'Opened batch A2 posters (3 orders)',
    detail: 'The batch is open: orders join it until it starts.',
  })
})

test('a refused scan says what it did not match, quoting what was read', () => {
  const refused = (status: number, code: string, message: string) => new ApiError(status, code, message)
  const foreign = scanRefusalWords(
    refused(422, 'validation_failed', 'This is not a code…'),
    ' EAN 4006381333931 ',
  )
  assert.equal(foreign.tone, 'refused')
  assert.equal(foreign.headline, 'This code is not from a job sheet or batch sheet')
  assert.match(foreign.detail ?? '', /^Read: “EAN 4006381333931”\./)
  const nothing = scanRefusalWords(refused(404, 'not_found', 'No batch with this id.'), `batch:${id}`)
  assert.equal(nothing.headline, 'No production order, batch or item has this code')
  assert.match(nothing.detail ?? '', new RegExp(`Read: “batch:${id}”`))
  const removed = scanRefusalWords(refused(404, 'not_found', 'No station with this id.'), `po:${id}`)
  assert.equal(removed.headline, 'This station was removed')
  const again = refused(409, 'production_conflict', 'The item MUG was already completed. Nothing was done.')
  assert.deepEqual(scanRefusalWords(again, `job:${id}`), {
    tone: 'refused',
    headline: 'This item was already completed',
    detail: 'Nothing was done.',
  })
  const held = refused(409, 'production_conflict', 'The order is held for review. Nothing was done.')
  assert.deepEqual(scanRefusalWords(held, `job:${id}`), {
    tone: 'refused',
    headline: 'This item cannot be completed now',
    detail: 'The order is held for review. Nothing was done.',
  })
  const offline = scanRefusalWords(refused(0, 'network', 'The service cannot be reached.'), `po:${id}`)
  assert.equal(offline.headline, 'The scan did not reach the service')
  assert.match(scanRefusalWords(new Error('boom'), 'x').detail ?? '', /boom/)
  const long = scanRefusalWords(refused(422, 'validation_failed', 'x'), 'a'.repeat(150))
  assert.match(long.detail ?? '', /^Read: “a{60}…”/)
})

test('actions at the station say what was done and who heard, or why nothing was done', () => {
  assert.deepEqual(actionWords({ label: 'Started production of order EXT-1', events: [] }), {
    tone: 'done',
    headline: 'Started production of order EXT-1',
    detail: 'No event was sent (a shop order, or made by a partner).',
  })
  const conflict = actionRefusedWords(new ApiError(409, 'production_conflict', 'The order is completed.'))
  assert.equal(conflict.headline, 'Not done: it changed meanwhile')
  assert.equal(conflict.detail, 'The order is completed. It shows as it is now.')
  assert.equal(
    actionRefusedWords(new ApiError(404, 'not_found', 'No station with this id.')).headline,
    'Not done',
  )
  const result = (outcome: string) => ({
    production_order_id: id,
    external_order_id: 'E',
    status: 'x',
    outcome,
  })
  const acted = {
    results: [result('changed'), result('changed'), result('skipped')],
    events: [{ type: 'order.production_started' }, { type: 'order.production_started' }],
  } as unknown as BatchActed
  assert.deepEqual(batchActedWords('A2 posters', 'start', acted), {
    tone: 'done',
    headline: 'Started batch A2 posters: 2 orders moved, 1 left as it is',
    detail: "2 events sent to the organizations' live webhooks.",
  })
  const none = { results: [result('unchanged')], events: [] } as unknown as BatchActed
  assert.equal(batchActedWords('B', 'fail', none).headline, 'Failed batch B: 0 orders moved, 1 already so')
})

test('the remembered station reads back only as an id and a name', () => {
  assert.deepEqual(readSavedStation(JSON.stringify({ id, name: 'Press 2' })), { id, name: 'Press 2' })
  for (const text of [
    null,
    '',
    'not json',
    '[]',
    '{"id":1,"name":"x"}',
    `{"id":"${id}"}`,
    '{"id":"","name":"x"}',
  ])
    assert.equal(readSavedStation(text), null, String(text))
})

test("the station forms' limits are the service's", () => {
  const name = StationNameBody.properties.name as unknown as { minLength: number; maxLength: number }
  assert.deepEqual(STATION_LIMITS.name, { min: name.minLength, max: name.maxLength })
  const code = ScanBody.properties.code as unknown as { minLength: number; maxLength: number }
  assert.deepEqual(STATION_LIMITS.code, { min: code.minLength, max: code.maxLength })
})
