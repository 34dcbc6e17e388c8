import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { redactSecrets } from '../../../src/http/redaction.ts'
import { KEPT_BODY_BYTES, keptBody, LOOKAHEAD } from '../../../src/modules/requests/requests.capture.ts'

const OPERATOR = 'op_Operator_Token_0123456789abcdefghijklmnopq'
const KEY = 'svc_live_Zq8Rt2Wm5Kx7Pv3Ny6Lb9Hc4Jd1Fg0Sa2Ue5Io7'
const jsonEscaped = (s: string) =>
  [...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')

/** The spec of keptBody: the whole body with its secrets replaced, then its first KEPT_BODY_BYTES on a whole character. */
function expected(body: string): string {
  const whole = Buffer.from(redactSecrets(body, [OPERATOR]))
  let end = Math.min(whole.length, KEPT_BODY_BYTES)
  while (end < whole.length && (whole[end]! & 0xc0) === 0x80) end--
  return whole.subarray(0, end).toString('utf8')
}

/** Distinct stretches of a secret no innocent part of the bodies below holds. */
const partsOf = (secret: string) => [secret.slice(3, 9), secret.slice(-6)]

describe('the body kept in the request log', () => {
  const forms: [string, string, string[]][] = [
    ['the operator token', OPERATOR, partsOf(OPERATOR)],
    ['the operator token, every character escaped', jsonEscaped(OPERATOR), partsOf(jsonEscaped(OPERATOR))],
    ['a key written svc\\u005flive_', KEY.replace('_live_', '\\u005flive_'), partsOf(KEY)],
    ['a key, every character escaped', jsonEscaped(KEY), [jsonEscaped(KEY).slice(-40)]],
    [
      'a key written svc%5Flive_ in a URL',
      `https://x.example/?q=${KEY.replaceAll('_', '%5F')}`,
      partsOf(KEY),
    ],
  ]
  for (const [name, secret, parts] of forms) {
    test(`${name}, beginning anywhere around the cut: no part of it is kept`, () => {
      for (const pad of ['x', 'é']) {
        const unit = Buffer.byteLength(pad)
        for (let at = KEPT_BODY_BYTES - secret.length - 12; at <= KEPT_BODY_BYTES + 4; at++) {
          const padding = pad.repeat(Math.floor((at - 9) / unit))
          const body = `{"note":"${padding}","s":"${secret}","more":"${'y'.repeat(3000)}"}`
          const kept = keptBody(Buffer.from(body), [OPERATOR])
          assert.equal(kept, expected(body), `${name} at ${at}`)
          assert.ok(
            Buffer.byteLength(kept) <= KEPT_BODY_BYTES && Buffer.byteLength(kept) > KEPT_BODY_BYTES - 4,
          )
          for (const part of parts) assert.ok(!kept.includes(part), `${name} at ${at}: ${kept.slice(-80)}`)
        }
      }
    })
  }

  test('secrets replaced by a shorter word: what is kept is still the first 16 KB of the replaced body', () => {
    const escaped = `"${jsonEscaped(KEY)}",`
    for (const count of [60, 200, 400]) {
      // 60: the first read covers it; 200 and 400 (about 115 KB and 230 KB) are read again further.
      const body = `[${escaped.repeat(count)}"${'z'.repeat(40_000)}"]`
      const kept = keptBody(Buffer.from(body), [OPERATOR])
      assert.equal(kept, expected(body), `${count} keys`)
      assert.equal(Buffer.byteLength(kept), KEPT_BODY_BYTES)
    }
    // Past 256 KB read, what is kept is shorter, never a part of a secret.
    const body = `[${escaped.repeat(2000)}"${'z'.repeat(40_000)}"]`
    const kept = keptBody(Buffer.from(body), [OPERATOR])
    assert.ok(expected(body).startsWith(kept))
    assert.ok(!kept.includes(jsonEscaped(KEY).slice(-40)))
  })

  test('a secret the first read ends in, after secrets replaced by a shorter word: no part of it is kept', () => {
    const token = jsonEscaped(OPERATOR)
    const readEnd = KEPT_BODY_BYTES + LOOKAHEAD + 6 * OPERATOR.length
    const key = `"${jsonEscaped(KEY)}",`
    // About this many keys before it, what the first read holds, replaced, is just over 16 KB.
    const keys = Math.floor((readEnd - KEPT_BODY_BYTES) / (key.length - redactSecrets(key).length))
    for (let count = keys - 1; count <= keys + 1; count++) {
      const head = `[${key.repeat(count)}"`
      for (let at = readEnd - token.length + 1; at < readEnd; at += 3) {
        const body = `${head}${'z'.repeat(at - head.length)}${token}","${'y'.repeat(20_000)}"]`
        const kept = keptBody(Buffer.from(body), [OPERATOR])
        assert.equal(kept, expected(body), `${count} keys, the token at ${at}`)
        assert.ok(!kept.includes(token.slice(0, 12)), `${count} keys, the token at ${at}: ${kept.slice(-80)}`)
      }
    }
  })

  test('a body of 10 MB is read only as far as needed', () => {
    const body = `{"note":"${'x'.repeat(10 * 1024 * 1024)}","s":"${KEY}"}`
    const kept = keptBody(Buffer.from(body), [OPERATOR])
    assert.equal(kept, `{"note":"${'x'.repeat(KEPT_BODY_BYTES - 9)}`)
  })

  test('a body under 16 KB is kept whole, its secrets replaced', () => {
    const body = JSON.stringify({ token: OPERATOR, key: KEY, note: 'é' })
    assert.equal(
      keptBody(Buffer.from(body), [OPERATOR]),
      '{"token":"REDACTED","key":"svc_live_REDACTED","note":"é"}',
    )
  })
})
