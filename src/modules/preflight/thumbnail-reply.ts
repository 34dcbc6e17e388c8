import type { Readable } from 'node:stream'
import type { FastifyReply } from 'fastify'

/** A thumbnail, shown inline: made by the service (WebP), kept for a day by the browser alone. */
export function sendThumbnail(reply: FastifyReply, stream: Readable) {
  return reply
    .header('content-type', 'image/webp')
    .header('cache-control', 'private, max-age=86400')
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', "default-src 'none'; sandbox")
    .header('cross-origin-resource-policy', 'same-origin')
    .send(stream)
}
