import assert from 'node:assert/strict'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'

/** GET url, asking for acceptEncoding (no Accept-Encoding header without one). */
export function getEncoded(app: FastifyInstance, url: string, acceptEncoding?: string) {
  return app.inject({
    method: 'GET',
    url,
    headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding },
  })
}

/** Bytes on the wire of one answer: status line, headers and body as sent. */
export function wireBytes(res: LightMyRequestResponse): number {
  const head = Object.entries(res.headers)
    .flatMap(([name, value]) => [value ?? []].flat().map((v) => `${name}: ${v}\r\n`))
    .join('')
  return (
    Buffer.byteLength(`HTTP/1.1 ${res.statusCode} ${res.statusMessage}\r\n${head}\r\n`) +
    res.rawPayload.length
  )
}

/** The body as the client reads it, after undoing its Content-Encoding. */
export function decoded(res: LightMyRequestResponse): Buffer {
  const encoding = res.headers['content-encoding']
  if (encoding === 'br') return brotliDecompressSync(res.rawPayload)
  if (encoding === 'gzip') return gunzipSync(res.rawPayload)
  assert.equal(encoding, undefined, 'no other encoding is sent')
  return res.rawPayload
}

/** What a page makes a browser load at once: scripts, stylesheets, module preloads, its icon. */
export function pageFiles(html: string): string[] {
  const scripts = [...html.matchAll(/<script\b[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]!)
  const links = [...html.matchAll(/<link\b[^>]*>/g)]
    .map((m) => m[0])
    .filter((tag) => /\srel="(?:stylesheet|modulepreload|icon)"/.test(tag))
    .map((tag) => /\shref="([^"]+)"/.exec(tag)?.[1])
    .filter((href): href is string => href !== undefined && !href.startsWith('data:'))
  return [...scripts, ...links]
}

/** The headers every compressed answer carries, for the encoding it was asked in. */
export function assertEncoded(
  res: LightMyRequestResponse,
  encoding: 'br' | 'gzip' | undefined,
  what: string,
) {
  assert.equal(res.statusCode, 200, what)
  assert.equal(res.headers['content-encoding'], encoding, what)
  assert.match(String(res.headers.vary), /accept-encoding/i, what)
  assert.equal(
    Number(res.headers['content-length']),
    res.rawPayload.length,
    `${what}: the length of the bytes sent`,
  )
}
