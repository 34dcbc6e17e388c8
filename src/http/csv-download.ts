import { Readable } from 'node:stream'
import type { FastifyReply } from 'fastify'

/** Answers with a CSV file to download: a whole text, or lines streamed as they are produced. */
export function sendCsv(reply: FastifyReply, filename: string, body: string | AsyncIterable<string>) {
  return reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${filename}"`)
    .header('x-content-type-options', 'nosniff')
    .send(typeof body === 'string' ? body : Readable.from(body))
}
