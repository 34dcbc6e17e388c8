import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import Type from 'typebox'
import { closingOnError } from '../../http/streamed-body.ts'
import { type Timeouts, uploadWatchdog } from '../../http/timeouts.ts'
import { MAX_FILENAME } from './filename.ts'
import { MAX_UPLOAD_BYTES } from './storage/storage.ts'
import { SignedUrlQuery, UploadReceipt, UploadRequest, UploadSlot } from './uploads.schemas.ts'
import type { UploadService } from './uploads.service.ts'

export function uploadsRoutes(deps: { uploads: UploadService; timeouts: Timeouts }) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
    app.addHook('onClose', () => deps.uploads.close())

    app.post(
      '/uploads',
      {
        config: { auth: 'key', scopes: ['files:write'], jsonBody: true, creates: true },
        schema: {
          operationId: 'createUpload',
          tags: ['uploads'],
          summary: 'Get a signed upload slot for one file',
          description: `The filename is sanitized: directory parts removed, characters outside [A-Za-z0-9._-] replaced with _, truncated to ${MAX_FILENAME} characters keeping the extension. Files are checked when an order references them, not at upload.`,
          body: UploadRequest,
          response: { 201: Type.Object({ data: UploadSlot }, { description: 'The slot.' }) },
        },
      },
      async (request, reply) => {
        reply.code(201)
        return { data: await deps.uploads.createSlot(request.principal!, request.body.filename) }
      },
    )

    // The signed PUT, where the storage lets the service receive it (embedded
    // storage): the body is the raw file, streamed to disk as it arrives, so no
    // parser may read it first, whatever Content-Type the client sends
    // (text/plain and application/json included): a scope of its own without
    // the app's parsers.
    const receive = deps.uploads.receive
    if (!receive) return
    await app.register(async (raw) => {
      raw.removeAllContentTypeParsers()
      raw.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined))
      // No query schema: a repeated or array-form parameter is a malformed
      // signed URL (403 upload_url_invalid), not a validation error (422).
      raw.put<{ Params: { id: string }; Querystring: Record<string, unknown> }>(
        '/uploads/:id/content',
        {
          config: {
            auth: 'none',
            streamedBody: true,
            errors: [
              'upload_url_invalid',
              'upload_too_large',
              'upload_already_referenced',
              'validation_failed',
            ],
            openapi: {
              querystring: SignedUrlQuery,
              body: Type.String({
                format: 'binary',
                description: `The file\u2019s bytes, at most ${MAX_UPLOAD_BYTES}.`,
              }),
              consumes: ['application/octet-stream'],
            },
          },
          schema: {
            operationId: 'putUploadContent',
            tags: ['uploads'],
            summary: 'Send the bytes of one file to its signed upload URL',
            description: [
              'Call `upload_url` from POST /v1/uploads exactly as returned: this path and its query are its form on a service that stores files itself, shown to describe the answers. Never build the URL from its parts, and never wrap the file in JSON.',
              'The body is the raw file, no Authorization header. Any Content-Type is taken as it is. A JSON object or array sent with a JSON Content-Type (`application/json`, `+json`) is refused with 422 `validation_failed` on field `Content-Type`, and one sent under another type for a file named as an image or PDF on field `body`. Either way nothing is stored, and the URL still takes the right PUT. A repeated PUT replaces the bytes until an accepted order references the upload.',
              'With S3 storage `upload_url` is a presigned S3 URL: the same PUT of the raw bytes goes to the bucket, which answers in its own format (XML errors) and does not look at the Content-Type; the file is checked when an order references it.',
            ].join('\n\n'),
            params: Type.Object({ id: Type.String({ description: 'The upload_id.' }) }),
            response: { 200: Type.Object({ data: UploadReceipt }, { description: 'Stored.' }) },
          },
        },
        closingOnError(async (request) => {
          const length = request.headers['content-length']
          const single = (value: unknown) => (typeof value === 'string' ? value : undefined)
          // Not a deadline but a minimum rate: a large file on a slow line takes its time.
          const body = uploadWatchdog(request.raw, deps.timeouts)
          try {
            const { size } = await receive({
              uploadId: request.params.id,
              expires: single(request.query.expires),
              signature: single(request.query.signature),
              contentLength: length === undefined ? undefined : Number(length),
              contentType: request.headers['content-type'],
              body,
            })
            return { data: { upload_id: request.params.id, size_bytes: size } }
          } finally {
            // A PUT refused before its body is read stops being watched too.
            body.destroy()
          }
        }),
      )
    })
  }
}
