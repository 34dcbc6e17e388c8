import { AppError } from '../../http/errors.ts'
import type { FileStorage } from './storage/storage.ts'

/**
 * JSON sent to an upload URL instead of a file: what a client generated from
 * the OpenAPI document does when it serializes the file (a Blob becomes `{}`,
 * a File its properties) instead of sending its bytes. Refused with
 * validation_failed, the upload left as it was, so the URL takes the right PUT.
 */

/** `application/json` and every `+json` type, with or without parameters. */
const JSON_MEDIA_TYPE = /^\s*application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i

const AGAIN = 'this upload_url still takes it'

/** Whether a PUT's Content-Type says JSON. */
export const declaresJson = (contentType: string | undefined): boolean =>
  contentType !== undefined && JSON_MEDIA_TYPE.test(contentType)

/** What a JSON body sent as JSON gets (a file's bytes under a JSON Content-Type are still stored). */
export function jsonContentType(contentType: string): AppError {
  const type = contentType.split(';')[0]!.trim().slice(0, 100)
  return AppError.validation(
    [
      {
        code: 'invalid_format',
        field: 'Content-Type',
        message: `Content-Type ${type}: the upload PUT takes the file\u2019s raw bytes, not JSON. Send the file as it is, with its own type or application/octet-stream (a JSON file as text/plain); ${AGAIN}.`,
      },
    ],
    'The upload PUT takes the file\u2019s raw bytes, not a JSON body; nothing was stored, and errors[] says what to send.',
  )
}

/**
 * Files named as images or PDFs, whose bytes are never JSON. Only the name
 * (or a JSON Content-Type) says what the client meant to send: the order
 * still checks the bytes alone.
 */
const BINARY_EXTENSION = /\.(?:png|jpe?g|webp|gif|tiff?|bmp|hei[cf]|avif|pdf)$/i

/** JSON bodies are looked at up to this size; a serialized file is small. */
const MAX_SERIALIZED_BYTES = 64 * 1024

/**
 * Whether the bytes stored at `key` are a JSON object or array where a file
 * was meant: for a file named as an image or PDF, or sent as JSON.
 */
export async function isSerializedFile(
  storage: FileStorage,
  file: { filename: string; declaredJson: boolean },
  key: string,
  size: number,
): Promise<boolean> {
  if ((!file.declaredJson && !BINARY_EXTENSION.test(file.filename)) || size > MAX_SERIALIZED_BYTES)
    return false
  const stored = await storage.head(key, size)
  try {
    const value: unknown = JSON.parse(stored?.head.toString('utf8') ?? '')
    return typeof value === 'object' && value !== null
  } catch {
    return false
  }
}

export function serializedFile(filename: string): AppError {
  return AppError.validation(
    [
      {
        code: 'invalid_format',
        field: 'body',
        message: `body is JSON, not the bytes of ${filename}: send the file itself (not an object describing it); ${AGAIN}.`,
      },
    ],
    'The upload PUT takes the file\u2019s raw bytes, not a JSON body; nothing was stored, and errors[] says what to send.',
  )
}
