import type { Readable } from 'node:stream'
import type { FastifyReply } from 'fastify'

/**
 * Answers with a stored file as a download of its detected type: never
 * sniffed nor run as a page in the service's origin (a sanitized SVG
 * included); an <img> of the same origin still shows an image as a thumbnail.
 */
export function sendFileDownload(
  reply: FastifyReply,
  file: { stream: Readable; contentType: string; size: number; filename: string },
) {
  return reply
    .header('content-type', file.contentType)
    .header('content-length', String(file.size))
    .header('content-disposition', `attachment; filename="${file.filename}"`)
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', "default-src 'none'; sandbox")
    .header('cross-origin-resource-policy', 'same-origin')
    .send(file.stream)
}
