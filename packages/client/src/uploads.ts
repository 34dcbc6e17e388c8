import type { Transport } from './transport.ts'
import type { UploadSlot } from './types.ts'

/**
 * File content: bytes (a Node Buffer is a Uint8Array), a Blob or File, a web
 * ReadableStream, or any async iterable of bytes (a Node stream such as
 * `fs.createReadStream(path)`). Bytes and Blobs can be sent again; streams
 * are sent once.
 */
export type UploadContent =
  | Uint8Array
  | ArrayBuffer
  | Blob
  | ReadableStream<Uint8Array>
  | AsyncIterable<Uint8Array>

export interface PutOptions {
  /** Content-Type to send; the service detects the type from the bytes anyway, and refuses a JSON type (422). */
  contentType?: string
  /** The stream's length in bytes: sent as Content-Length (object stores require it for streams). */
  size?: number
  signal?: AbortSignal
}

export interface UploadedFile {
  /** Reference it in an order item's `files[]`. */
  upload_id: string
  /** The sanitized file name. */
  filename: string
}

const isAsyncIterable = (value: unknown): value is AsyncIterable<Uint8Array> =>
  typeof (value as AsyncIterable<unknown>)?.[Symbol.asyncIterator] === 'function'

/** A web stream from an async iterable (ReadableStream.from is missing in some browsers). */
function streamOf(source: AsyncIterable<Uint8Array | string>): ReadableStream<Uint8Array> {
  const iterator = source[Symbol.asyncIterator]()
  const utf8 = new TextEncoder()
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next()
      if (next.done) controller.close()
      else controller.enqueue(typeof next.value === 'string' ? utf8.encode(next.value) : next.value)
    },
    async cancel(reason) {
      await iterator.return?.(reason)
    },
  })
}

export class Uploads {
  readonly #transport: Transport
  constructor(transport: Transport) {
    this.#transport = transport
  }

  /** POST /v1/uploads: a signed slot for one file (an unused slot simply expires, so it is safe to repeat). */
  async create(filename: string, options: { signal?: AbortSignal } = {}): Promise<UploadSlot> {
    const answer = await this.#transport.call('POST', '/v1/uploads', {
      body: { filename },
      retry: 'safe',
      signal: options.signal,
    })
    return answer.body.data
  }

  /**
   * PUT the bytes to the slot's `upload_url` (no API key: the address is
   * signed). Throws OrderIntakeError on any answer but 2xx; bytes and Blobs
   * are sent again after a 5xx or a lost answer, which replaces the file.
   */
  async put(slot: Pick<UploadSlot, 'upload_url'>, content: UploadContent, options: PutOptions = {}) {
    const headers: Record<string, string> = {
      'content-type': options.contentType ?? 'application/octet-stream',
    }
    const stream =
      content instanceof ReadableStream || (!(content instanceof Uint8Array) && isAsyncIterable(content))
    if (options.size !== undefined) headers['content-length'] = String(options.size)
    const body: BodyInit = stream
      ? content instanceof ReadableStream
        ? content
        : streamOf(content as AsyncIterable<Uint8Array>)
      : (content as Uint8Array<ArrayBuffer> | ArrayBuffer | Blob)
    // Node's fetch needs duplex 'half' to send a stream; browsers ignore what they do not know.
    const init = { method: 'PUT', headers, body, ...(stream ? { duplex: 'half' } : {}) } as RequestInit
    await this.#transport.send(slot.upload_url, init, stream ? 'rate-limit' : 'safe', options.signal)
  }

  /** Creates a slot, PUTs the content and returns the `upload_id` to reference in an order. */
  async upload(filename: string, content: UploadContent, options: PutOptions = {}): Promise<UploadedFile> {
    const slot = await this.create(filename, options.signal ? { signal: options.signal } : {})
    await this.put(slot, content, options)
    return { upload_id: slot.upload_id, filename: slot.filename }
  }
}
