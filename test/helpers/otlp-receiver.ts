import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gunzipSync } from 'node:zlib'
import { waitUntil } from './wait.ts'

/** An attribute value as OTLP/JSON writes it. */
type AnyValue = {
  stringValue?: string
  intValue?: string | number
  doubleValue?: number
  boolValue?: boolean
  arrayValue?: { values?: AnyValue[] }
}

/** A span as received, its attributes and resource's flattened. */
export interface ReceivedSpan {
  traceId: string
  spanId: string
  parentSpanId: string | undefined
  name: string
  kind: number
  attributes: Record<string, unknown>
  links: { traceId: string; spanId: string }[]
  status: { code?: number; message?: string }
  resource: Record<string, unknown>
  scope: string
}

/** The JSON (base64 or hex) id as hex. */
function hexId(id: string | undefined): string {
  if (!id) return ''
  return /^[0-9a-f]+$/.test(id) ? id : Buffer.from(id, 'base64').toString('hex')
}

function attributeValue(v: AnyValue | undefined): unknown {
  if (!v) return undefined
  if (v.stringValue !== undefined) return v.stringValue
  if (v.intValue !== undefined) return Number(v.intValue)
  if (v.doubleValue !== undefined) return v.doubleValue
  if (v.boolValue !== undefined) return v.boolValue
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(attributeValue)
  return undefined
}

const attributesOf = (list: { key: string; value: AnyValue }[] | undefined) =>
  Object.fromEntries((list ?? []).map((a) => [a.key, attributeValue(a.value)]))

/**
 * An OpenTelemetry collector's OTLP/HTTP traces endpoint in the test's
 * process: every span posted to /v1/traces (JSON, gzipped or not), and each
 * request's raw body, kept for the test to read.
 */
export async function startOtlpReceiver(): Promise<{
  url: string
  spans: ReceivedSpan[]
  bodies: string[]
  waitForSpan(predicate: (s: ReceivedSpan) => boolean, what: string): Promise<ReceivedSpan>
  close(): Promise<void>
}> {
  const spans: ReceivedSpan[] = []
  const bodies: string[] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => {
      let raw = Buffer.concat(chunks)
      if (req.headers['content-encoding'] === 'gzip') raw = gunzipSync(raw)
      const text = raw.toString('utf8')
      bodies.push(text)
      if (req.url !== '/v1/traces' || !String(req.headers['content-type']).startsWith('application/json')) {
        res.writeHead(415).end()
        return
      }
      const body = JSON.parse(text)
      for (const rs of body.resourceSpans ?? []) {
        const resource = attributesOf(rs.resource?.attributes)
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              traceId: hexId(s.traceId),
              spanId: hexId(s.spanId),
              parentSpanId: s.parentSpanId ? hexId(s.parentSpanId) : undefined,
              name: s.name,
              kind: s.kind,
              attributes: attributesOf(s.attributes),
              links: (s.links ?? []).map((l: { traceId: string; spanId: string }) => ({
                traceId: hexId(l.traceId),
                spanId: hexId(l.spanId),
              })),
              status: s.status ?? {},
              resource,
              scope: ss.scope?.name ?? '',
            })
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    bodies,
    async waitForSpan(predicate, what) {
      await waitUntil(async () => spans.some(predicate), what)
      return spans.find(predicate)!
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}
