import assert from 'node:assert/strict'
import { test } from 'node:test'
import { hashPassword, PASSWORD_COST, verifyPassword } from '../../../src/modules/accounts/passwords.ts'

const SECRET = 'correct horse battery staple'

test("the service's passwords: scrypt N=2^15, r=8, p=1, a 16-byte salt; only the right password verifies", async () => {
  assert.deepEqual(PASSWORD_COST, { N: 32_768, r: 8, p: 1 })
  const stored = await hashPassword(SECRET)
  assert.match(stored, /^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/)
  assert.notEqual(await hashPassword(SECRET), stored, 'a fresh salt each time')
  assert.equal(await verifyPassword(SECRET, stored), true)
  assert.equal(await verifyPassword(`${SECRET}!`, stored), false)
  // The same text in another Unicode form is the same password.
  const composed = await hashPassword('caf\u00e9 au lait, five sugars')
  assert.equal(await verifyPassword('cafe\u0301 au lait, five sugars', composed), true)
})

test('a hash records its cost: one made at another cost still verifies; no hash (unknown email) never does', async () => {
  const cheap = { N: 1024, r: 8, p: 1 }
  const stored = await hashPassword(SECRET, cheap)
  assert.match(stored, /^scrypt\$1024\$8\$1\$/)
  assert.equal(await verifyPassword(SECRET, stored), true)
  assert.equal(await verifyPassword(SECRET, undefined), false)
  assert.equal(await verifyPassword(SECRET, undefined, cheap), false)
  assert.equal(await verifyPassword(SECRET, 'md5$abc'), false)
})
