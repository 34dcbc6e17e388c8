import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { compiled, EMPTY, raw, StatementShapeError, statementText, stmt } from '../../src/db/statement.ts'

describe('stmt', () => {
  it('numbers the parameters of nested statements in order and splices raw names as they are', () => {
    const inner = stmt`b = ${2} and c = ${'three'}`
    const s = stmt`select * from ${raw('t')} where a = ${1} and ${inner} ${EMPTY}and d = ${null}`
    assert.equal(statementText(s), 'select * from t where a = $1 and b = $2 and c = $3 and d = $4')
    assert.deepEqual(s.values, [1, 2, 'three', null])
  })

  it('sends dates as ISO 8601 text in UTC', () => {
    const s = stmt`select ${new Date(Date.UTC(2026, 11, 2, 18, 0, 0, 5))}::timestamptz`
    assert.deepEqual(s.values, ['2026-12-02T18:00:00.005Z'])
  })

  it('joins the text of a shape once and refuses a statement of the same shape with other parameters', () => {
    const build = (flag: boolean, n: number) => stmt`select ${n}${flag ? stmt`, ${n + 1}` : EMPTY}`
    const first = compiled('statement-test:a', build(true, 1))
    const again = compiled('statement-test:a', build(true, 7))
    assert.equal(first.sql, 'select $1, $2')
    assert.equal(again.sql, first.sql)
    assert.deepEqual(again.parameters, [7, 8])
    assert.throws(() => compiled('statement-test:a', build(false, 1)), StatementShapeError)
  })
})
