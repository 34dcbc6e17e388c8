import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createRequestRecorder, type RequestLine } from '../../../src/modules/requests/requests.recorder.ts'

/** A writer whose statements are counted (and fail while `failing`). */
function fakeDb() {
  const statements: number[] = []
  const state = { failing: false, statements }
  const write = async (rows: RequestLine[]) => {
    if (state.failing) throw new Error('database away')
    statements.push(rows.length)
  }
  return { write, state }
}

const line = (n: number) => ({ id: String(n) }) as unknown as RequestLine

describe('the request log recorder', () => {
  test('record returns at once; lines are written together on the timer, a full batch at once', async () => {
    const { write, state } = fakeDb()
    const recorder = createRequestRecorder({ write, flushIntervalMs: 30, batch: 4 })
    for (let n = 0; n < 3; n++) recorder.record(line(n))
    assert.deepEqual(state.statements, [], 'nothing is written on the caller\u2019s path')
    await new Promise((resolve) => setTimeout(resolve, 80))
    assert.deepEqual(state.statements, [3], 'one statement for the three')
    for (let n = 0; n < 4; n++) recorder.record(line(n))
    await recorder.flush()
    assert.deepEqual(state.statements, [3, 4])
    for (let n = 0; n < 9; n++) recorder.record(line(n))
    await recorder.flush()
    assert.deepEqual(state.statements, [3, 4, 4, 4, 1], 'at most a batch a statement')
  })

  test('a failed write loses what waits, reported once; the next lines are written again', async () => {
    const { write, state } = fakeDb()
    const reports: number[] = []
    const recorder = createRequestRecorder({ write, batch: 2, flushIntervalMs: 10_000 })
    recorder.reportTo((_err, lost) => reports.push(lost))
    state.failing = true
    recorder.record(line(1))
    for (let n = 0; n < 4; n++) recorder.record(line(n))
    await recorder.flush()
    assert.deepEqual(reports, [5])
    state.failing = false
    recorder.record(line(9))
    await recorder.flush()
    assert.deepEqual(state.statements, [1])
  })

  test('past maxWaiting new lines are dropped and counted; after close nothing is recorded', async () => {
    const { write, state } = fakeDb()
    const reports: number[] = []
    const recorder = createRequestRecorder({
      write,
      batch: 100,
      maxWaiting: 3,
      flushIntervalMs: 10_000,
      onError: (_err, lost) => reports.push(lost),
    })
    for (let n = 0; n < 5; n++) recorder.record(line(n))
    await recorder.close()
    assert.deepEqual(state.statements, [3])
    assert.deepEqual(reports, [2])
    recorder.record(line(6))
    await recorder.flush()
    assert.deepEqual(state.statements, [3])
  })
})
